// Judge answers cached by a hash of everything that determines them, with the tokens each cost,
// so repeated runs are free and reports can say how much the cache saved.
import type { TokenUsage } from "../core/index.ts";
import { iso } from "./columns.ts";
import type { Queryable } from "./db.ts";

/** What the judge answered: the verdict's fields, without its key. */
export interface CachedVerdictValue {
  score?: number;
  count?: number;
  ideas?: string[];
  value?: boolean;
  reasoning: string;
}

export interface CacheEntry {
  /** A hash of provider, model, prompt version, claim, context and trial (computed by the judge side). */
  key: string;
  provider: string;
  model: string;
  value: CachedVerdictValue;
  /** Tokens the original call cost (its share of a batched call). */
  usage?: TokenUsage;
}

export interface CachedVerdict extends CacheEntry {
  hits: number;
  created_at: string;
}

export interface CacheStatsByModel {
  provider: string;
  model: string;
  entries: number;
  hits: number;
  bytes: number;
  /** Tokens this model's hits would have cost without the cache. */
  saved_usage: TokenUsage;
}

export interface VerdictCacheStats {
  entries: number;
  /** Lookups answered from the cache, over its lifetime. */
  hits: number;
  /** Approximate stored size of the cached values. */
  bytes: number;
  /** Tokens the hits would have cost without the cache. */
  saved_usage: TokenUsage;
  by_model: CacheStatsByModel[];
}

export interface VerdictCacheRepository {
  /** Looks up many keys at once and counts a hit on each found. Missing keys are absent from the map. */
  get(keys: readonly string[]): Promise<Map<string, CachedVerdict>>;
  /** Looks up many keys at once without counting a hit (dry runs, and checking before a counted lookup). */
  peek(keys: readonly string[]): Promise<Map<string, CachedVerdict>>;
  /**
   * Counts a hit on each stored key, as `get` would, without reading anything back: after a `peek` has
   * read the entries, this records the hits at about half the cost of a second, counting lookup.
   */
  hit(keys: readonly string[]): Promise<void>;
  /** Stores entries; an existing key takes the new value and keeps its hit count. */
  put(entries: readonly CacheEntry[]): Promise<void>;
  stats(): Promise<VerdictCacheStats>;
  /** Deletes every entry, or one model's (optionally one provider's); returns how many. */
  clear(options?: { model?: string; provider?: string }): Promise<number>;
}

const BATCH = 1_000;

// A lookup returns its rows as one JSON array of [key, provider, model, value, usage, hits, created_at]
// rather than as one result row each: PGlite decodes every field of every row in JavaScript, and one text
// field parsed with JSON.parse costs about half as much for a bulk lookup. Same SQL on both drivers.
type Raw = [string, string, string, CachedVerdictValue, TokenUsage | null, number, string];

const AS_JSON =
  "json_agg(json_build_array(key, provider, model, value, usage, hits, created_at))::text AS rows";

export function verdictCacheRepository(db: Queryable): VerdictCacheRepository {
  return {
    get: (keys) =>
      // Lookup and hit count in one statement.
      select(
        db,
        keys,
        `WITH hit AS (
           UPDATE verdict_cache SET hits = hits + 1, last_hit_at = now()
            WHERE key = ANY($1::text[])
            RETURNING key, provider, model, value, usage, hits, created_at)
         SELECT ${AS_JSON} FROM hit`,
      ),
    peek: (keys) => select(db, keys, `SELECT ${AS_JSON} FROM verdict_cache WHERE key = ANY($1::text[])`),
    async hit(keys) {
      const unique = [...new Set(keys)];
      for (let i = 0; i < unique.length; i += BATCH)
        await db.query(
          "UPDATE verdict_cache SET hits = hits + 1, last_hit_at = now() WHERE key = ANY($1::text[])",
          [unique.slice(i, i + BATCH)],
        );
    },
    async put(entries) {
      for (let i = 0; i < entries.length; i += BATCH) {
        const byKey = new Map(entries.slice(i, i + BATCH).map((e) => [e.key, e]));
        const records = [...byKey.values()].map((e) => ({
          key: e.key,
          provider: e.provider,
          model: e.model,
          value: e.value,
          usage: e.usage ?? null,
        }));
        await db.query(
          `INSERT INTO verdict_cache (key, provider, model, value, usage)
           SELECT x.key, x.provider, x.model, x.value, x.usage
             FROM jsonb_to_recordset($1::jsonb) AS x(key text, provider text, model text, value jsonb, usage jsonb)
           ON CONFLICT (key) DO UPDATE
             SET provider = excluded.provider, model = excluded.model, value = excluded.value, usage = excluded.usage`,
          [JSON.stringify(records)],
        );
      }
    },
    async stats() {
      const result = await db.query<{
        provider: string;
        model: string;
        entries: number;
        hits: number;
        bytes: number;
        saved_input: number;
        saved_output: number;
      }>(
        `SELECT provider, model, count(*)::integer AS entries, COALESCE(sum(hits), 0)::integer AS hits,
                COALESCE(sum(pg_column_size(value) + COALESCE(pg_column_size(usage), 0) + length(key)), 0)::bigint::float8 AS bytes,
                COALESCE(sum(hits::float8 * COALESCE((usage ->> 'input_tokens')::float8, 0)), 0)::float8 AS saved_input,
                COALESCE(sum(hits::float8 * COALESCE((usage ->> 'output_tokens')::float8, 0)), 0)::float8 AS saved_output
           FROM verdict_cache GROUP BY provider, model ORDER BY provider, model`,
      );
      const stats: VerdictCacheStats = {
        entries: 0,
        hits: 0,
        bytes: 0,
        saved_usage: { input_tokens: 0, output_tokens: 0 },
        by_model: [],
      };
      for (const r of result.rows) {
        stats.entries += r.entries;
        stats.hits += r.hits;
        stats.bytes += r.bytes;
        stats.saved_usage.input_tokens += r.saved_input;
        stats.saved_usage.output_tokens += r.saved_output;
        stats.by_model.push({
          provider: r.provider,
          model: r.model,
          entries: r.entries,
          hits: r.hits,
          bytes: r.bytes,
          saved_usage: { input_tokens: r.saved_input, output_tokens: r.saved_output },
        });
      }
      return stats;
    },
    async clear({ model, provider } = {}) {
      const result = await db.query(
        "DELETE FROM verdict_cache WHERE ($1::text IS NULL OR model = $1) AND ($2::text IS NULL OR provider = $2)",
        [model ?? null, provider ?? null],
      );
      return result.rowCount;
    },
  };
}

/** Runs a lookup statement over the keys, 1,000 at a time, and collects the rows by key. */
async function select(
  db: Queryable,
  keys: readonly string[],
  sql: string,
): Promise<Map<string, CachedVerdict>> {
  const found = new Map<string, CachedVerdict>();
  const unique = [...new Set(keys)];
  for (let i = 0; i < unique.length; i += BATCH) {
    const result = await db.query<{ rows: string | null }>(sql, [unique.slice(i, i + BATCH)]);
    const rows: Raw[] = JSON.parse(result.rows[0]?.rows ?? "[]");
    for (const [key, provider, model, value, usage, hits, created_at] of rows)
      found.set(key, {
        key,
        provider,
        model,
        value,
        ...(usage === null ? {} : { usage }),
        hits,
        created_at: iso(created_at),
      });
  }
  return found;
}
