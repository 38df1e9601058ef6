// Judge answers cached by a hash of everything that determines them, with the tokens each cost,
// so repeated runs are free and reports can say how much the cache saved.
import type { TokenUsage } from "../core/index.ts";
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
  /** Verdicts served from the cache since it was created or last cleared (for the models cleared). */
  hits: number;
  /** Approximate stored size of the cached values. */
  bytes: number;
  /** Tokens the hits would have cost without the cache. */
  saved_usage: TokenUsage;
  by_model: CacheStatsByModel[];
}

/** The statistics of a cache with nothing in it (and of a store that does not exist yet). */
export function emptyVerdictCacheStats(): VerdictCacheStats {
  return { entries: 0, hits: 0, bytes: 0, saved_usage: { input_tokens: 0, output_tokens: 0 }, by_model: [] };
}

/** The hits of one lookup for one model, and the tokens the entries served first cost. */
export interface HitTally {
  provider: string;
  model: string;
  hits: number;
  input: number;
  output: number;
}

/** Served entries tallied by model, one row per model, as both backends record a lookup's hits. */
export function hitsByModel(entries: Iterable<CacheEntry>): HitTally[] {
  const byModel = new Map<string, HitTally>();
  for (const e of entries) {
    const id = `${e.provider}\u0000${e.model}`;
    let t = byModel.get(id);
    if (!t) byModel.set(id, (t = { provider: e.provider, model: e.model, hits: 0, input: 0, output: 0 }));
    t.hits++;
    t.input += e.usage?.input_tokens ?? 0;
    t.output += e.usage?.output_tokens ?? 0;
  }
  return [...byModel.values()];
}

/** One model's figures, as every backend adds them up. */
export interface ModelCacheFigures {
  provider: string;
  model: string;
  entries: number;
  hits: number;
  bytes: number;
  saved_input: number;
  saved_output: number;
}

/** The statistics of a cache from its models' figures (in the order given). */
export function verdictCacheStatsOf(models: Iterable<ModelCacheFigures>): VerdictCacheStats {
  const stats = emptyVerdictCacheStats();
  for (const m of models) {
    stats.entries += m.entries;
    stats.hits += m.hits;
    stats.bytes += m.bytes;
    stats.saved_usage.input_tokens += m.saved_input;
    stats.saved_usage.output_tokens += m.saved_output;
    stats.by_model.push({
      provider: m.provider,
      model: m.model,
      entries: m.entries,
      hits: m.hits,
      bytes: m.bytes,
      saved_usage: { input_tokens: m.saved_input, output_tokens: m.saved_output },
    });
  }
  return stats;
}

export interface VerdictCacheRepository {
  /** Looks up many keys at once and counts a hit for each found. Missing keys are absent from the map. */
  get(keys: readonly string[]): Promise<Map<string, CacheEntry>>;
  /** Looks up many keys at once without counting a hit (dry runs, and checking before a counted lookup). */
  peek(keys: readonly string[]): Promise<Map<string, CacheEntry>>;
  /**
   * Counts a hit for each entry, as `get` would, after a `peek` read them: one tally row per model (hits
   * and the tokens the entries first cost), written in one statement, whatever the number of entries.
   */
  hit(entries: readonly CacheEntry[]): Promise<void>;
  /**
   * Counts hits already tallied by model (one row per model, as `hit` writes them), for a whole evaluation
   * reused from the store: the hits its verdicts would have been, without reading an entry.
   */
  tally(rows: readonly HitTally[]): Promise<void>;
  /** Stores entries; an existing key takes the new value (and moves the generation). */
  put(entries: readonly CacheEntry[]): Promise<void>;
  stats(): Promise<VerdictCacheStats>;
  /** Deletes every entry, or one model's (optionally one provider's); returns how many. Moves the generation. */
  clear(options?: { model?: string; provider?: string }): Promise<number>;
  /**
   * A number that moves whenever an entry is deleted or replaced (never when one is only added or read):
   * while it stays put, every verdict the cache served still stands as it was served.
   */
  generation(): Promise<number>;
}

const BATCH = 1_000;

// A lookup returns its rows as one JSON array of [key, provider, model, value, usage] rather than as one
// result row each: PGlite decodes every field of every row in JavaScript, and one text field parsed with
// JSON.parse costs about half as much for a bulk lookup. Same SQL on both drivers. An entry's age is left
// out: nothing served needs it, and formatting a timestamp per row was a tenth of the lookup.
type Raw = [string, string, string, CachedVerdictValue, TokenUsage | null];

const LOOKUP = `SELECT json_agg(json_build_array(key, provider, model, value, usage))::text AS rows
  FROM verdict_cache WHERE key = ANY($1::text[])`;

export function verdictCacheRepository(db: Queryable): VerdictCacheRepository {
  const tally = (entries: Iterable<CacheEntry>) => tallyRows(hitsByModel(entries));
  const tallyRows = async (rows: readonly HitTally[]) => {
    if (rows.length === 0) return;
    await db.query(
      `INSERT INTO verdict_cache_hits (provider, model, hits, input_tokens, output_tokens)
       SELECT * FROM unnest($1::text[], $2::text[], $3::integer[], $4::bigint[], $5::bigint[])`,
      [
        rows.map((r) => r.provider),
        rows.map((r) => r.model),
        rows.map((r) => r.hits),
        rows.map((r) => r.input),
        rows.map((r) => r.output),
      ],
    );
  };
  return {
    async get(keys) {
      const found = await select(db, keys);
      await tally(found.values());
      return found;
    },
    peek: (keys) => select(db, keys),
    hit: (entries) => tally(entries),
    tally: (rows) => tallyRows(rows.filter((r) => r.hits > 0)),
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
        // A replaced entry (xmax is set on a row updated by ON CONFLICT, 0 on one inserted) moves the
        // generation in the same statement.
        await db.query(
          `WITH up AS (
             INSERT INTO verdict_cache (key, provider, model, value, usage)
             SELECT x.key, x.provider, x.model, x.value, x.usage
               FROM jsonb_to_recordset($1::jsonb) AS x(key text, provider text, model text, value jsonb, usage jsonb)
             ON CONFLICT (key) DO UPDATE
               SET provider = excluded.provider, model = excluded.model, value = excluded.value, usage = excluded.usage
             RETURNING xmax::text <> '0' AS replaced)
           SELECT nextval('verdict_cache_generation') FROM (SELECT 1 FROM up WHERE replaced LIMIT 1) AS r`,
          [JSON.stringify(records)],
        );
      }
    },
    async stats() {
      const result = await db.query<ModelCacheFigures>(
        `WITH entries AS (
           SELECT provider, model, count(*)::integer AS entries,
                  sum(pg_column_size(value) + COALESCE(pg_column_size(usage), 0) + length(key))::float8 AS bytes
             FROM verdict_cache GROUP BY provider, model),
         hits AS (
           SELECT provider, model, sum(hits)::integer AS hits, sum(input_tokens)::float8 AS saved_input,
                  sum(output_tokens)::float8 AS saved_output
             FROM verdict_cache_hits GROUP BY provider, model)
         SELECT provider, model, COALESCE(entries, 0) AS entries, COALESCE(hits, 0) AS hits,
                COALESCE(bytes, 0) AS bytes, COALESCE(saved_input, 0) AS saved_input,
                COALESCE(saved_output, 0) AS saved_output
           FROM entries FULL JOIN hits USING (provider, model) ORDER BY provider, model`,
      );
      return verdictCacheStatsOf(result.rows);
    },
    async clear({ model, provider } = {}) {
      // The hits of what is cleared go too: the statistics describe the cache as it is.
      const which = "($1::text IS NULL OR model = $1) AND ($2::text IS NULL OR provider = $2)";
      // Moved first: an evaluation reused from now on was made before the deletion, and is not reused again.
      await db.query("SELECT nextval('verdict_cache_generation')");
      const result = await db.query(
        `WITH tally AS (DELETE FROM verdict_cache_hits WHERE ${which}) DELETE FROM verdict_cache WHERE ${which}`,
        [model ?? null, provider ?? null],
      );
      return result.rowCount;
    },
    async generation() {
      const result = await db.query<{ n: number }>(
        "SELECT (CASE WHEN is_called THEN last_value ELSE 0 END)::float8 AS n FROM verdict_cache_generation",
      );
      return result.rows[0]!.n;
    },
  };
}

/** Looks the keys up, 1,000 at a time, and collects the rows by key. */
async function select(db: Queryable, keys: readonly string[]): Promise<Map<string, CacheEntry>> {
  const found = new Map<string, CacheEntry>();
  const unique = [...new Set(keys)];
  for (let i = 0; i < unique.length; i += BATCH) {
    const result = await db.query<{ rows: string | null }>(LOOKUP, [unique.slice(i, i + BATCH)]);
    const rows: Raw[] = JSON.parse(result.rows[0]?.rows ?? "[]");
    for (const [key, provider, model, value, usage] of rows)
      found.set(
        key,
        usage === null ? { key, provider, model, value } : { key, provider, model, value, usage },
      );
  }
  return found;
}
