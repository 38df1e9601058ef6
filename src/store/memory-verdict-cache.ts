// The verdict cache of the in-memory store: entries by key, and hits tallied per model and lookup, as
// the SQL tables keep them, so statistics and clearing answer the same.
import type { TokenUsage } from "../core/index.ts";
import { compareText, jsonbText, jsonOut } from "./memory-columns.ts";
import {
  type CachedVerdictValue,
  type CacheEntry,
  type HitTally,
  hitsByModel,
  type VerdictCacheRepository,
  verdictCacheStatsOf,
} from "./verdict-cache.ts";

interface Stored {
  provider: string;
  model: string;
  /** jsonb text. */
  value: string;
  usage: string | null;
}

export function memoryVerdictCache(): VerdictCacheRepository {
  const entries = new Map<string, Stored>();
  let tallies: HitTally[] = [];
  // Moves when an entry is deleted or replaced, as the SQL sequence does.
  let generation = 0;

  const select = (keys: readonly string[]) => {
    const found = new Map<string, CacheEntry>();
    for (const key of keys) {
      const e = entries.get(key);
      if (!e || found.has(key)) continue;
      const value = jsonOut<CachedVerdictValue>(e.value)!;
      const usage = jsonOut<TokenUsage>(e.usage);
      found.set(
        key,
        usage === null
          ? { key, provider: e.provider, model: e.model, value }
          : { key, provider: e.provider, model: e.model, value, usage },
      );
    }
    return found;
  };
  // One tally row per model and call, as the SQL inserts them.
  const tally = (hit: Iterable<CacheEntry>) => {
    tallies.push(...hitsByModel(hit));
  };
  const matches = (
    { model, provider }: { model?: string; provider?: string },
    row: { model: string; provider: string },
  ) => (model === undefined || row.model === model) && (provider === undefined || row.provider === provider);

  return {
    async get(keys) {
      const found = select(keys);
      tally(found.values());
      return found;
    },
    peek: async (keys) => select(keys),
    hit: async (hit) => tally(hit),
    tally: async (rows) => {
      tallies.push(...rows.filter((r) => r.hits > 0).map((r) => ({ ...r })));
    },
    async put(put) {
      if (put.some((e) => entries.has(e.key))) generation++;
      for (const e of put)
        entries.set(e.key, {
          provider: e.provider,
          model: e.model,
          value: jsonbText(e.value)!,
          usage: jsonbText(e.usage),
        });
    },
    async stats() {
      const byModel = new Map<
        string,
        {
          provider: string;
          model: string;
          entries: number;
          hits: number;
          bytes: number;
          input: number;
          output: number;
        }
      >();
      const of = (provider: string, model: string) => {
        const id = `${provider}\u0000${model}`;
        let m = byModel.get(id);
        if (!m)
          byModel.set(id, (m = { provider, model, entries: 0, hits: 0, bytes: 0, input: 0, output: 0 }));
        return m;
      };
      for (const [key, e] of entries) {
        const m = of(e.provider, e.model);
        m.entries++;
        // The stored size of value and usage, and the key's length, as the SQL estimates it.
        m.bytes +=
          Buffer.byteLength(e.value) + (e.usage === null ? 0 : Buffer.byteLength(e.usage)) + key.length;
      }
      for (const t of tallies) {
        const m = of(t.provider, t.model);
        m.hits += t.hits;
        m.input += t.input;
        m.output += t.output;
      }
      return verdictCacheStatsOf(
        [...byModel.values()]
          .sort((x, y) => compareText(x.provider, y.provider) || compareText(x.model, y.model))
          .map((m) => ({ ...m, saved_input: m.input, saved_output: m.output })),
      );
    },
    async clear(which = {}) {
      // The hits of what is cleared go too: the statistics describe the cache as it is.
      generation++;
      tallies = tallies.filter((t) => !matches(which, t));
      let cleared = 0;
      for (const [key, e] of entries)
        if (matches(which, e)) {
          entries.delete(key);
          cleared++;
        }
      return cleared;
    },
    generation: async () => generation,
  };
}
