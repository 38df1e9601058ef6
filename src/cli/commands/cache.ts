// `dramaturg cache stats|clear`: what the verdict cache holds and saved, and emptying it (all, or one model).
import { type Command, Option } from "commander";
import { InputError, JUDGE_PROVIDERS } from "../../core/index.ts";
import { emptyVerdictCacheStats, openStore, redactUrl, storeExists } from "../../store/index.ts";
import { setExitCode } from "../exit-code.ts";
import { examples } from "../help-examples.ts";
import { resolveSettings } from "../settings.ts";

interface CacheFlags {
  db?: string;
  config?: string;
  model?: string;
  format?: string;
}

export function registerCacheCommand(program: Command): void {
  const cache = program
    .command("cache")
    .description("inspect or empty the verdict cache (live judge answers kept in the store)")
    .addHelpText(
      "after",
      examples(
        "dramaturg cache stats",
        "dramaturg cache clear --model openai:gpt-4o-mini",
        "dramaturg cache clear",
      ),
    );
  cache
    .command("stats")
    .description("entries, hits, size and tokens saved, in total and by model")
    .addOption(new Option("--format <format>", "output format").choices(["table", "json"]).default("table"))
    .option("--db <location>", "store location (default .dramaturg beside the project file)")
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      examples(
        "dramaturg cache stats",
        "dramaturg cache stats --format json",
        "dramaturg cache stats --db postgres://ci@db/dramaturg",
      ),
    )
    .action(async (flags: CacheFlags) => setExitCode(await cacheStats(flags)));
  cache
    .command("clear")
    .description("delete cached verdicts: all of them, or one model's")
    .option("--model <model>", "only this model's entries: MODEL or PROVIDER:MODEL")
    .option("--db <location>", "store location (default .dramaturg beside the project file)")
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      examples(
        "dramaturg cache clear",
        "dramaturg cache clear --model gpt-4o-mini",
        "dramaturg cache clear --model anthropic:claude-haiku-4-5",
      ),
    )
    .action(async (flags: CacheFlags) => setExitCode(await cacheClear(flags)));
}

function storeLocation(flags: CacheFlags): string {
  return resolveSettings({ flags: { db: flags.db }, projectFile: flags.config }).settings.db;
}

export async function cacheStats(flags: CacheFlags): Promise<number> {
  const format = flags.format ?? "table";
  const location = storeLocation(flags);
  // Reading statistics must not create a store where there is none.
  let stats = emptyVerdictCacheStats();
  if (storeExists(location)) {
    const store = await openStore(location);
    try {
      stats = await store.verdictCache.stats();
    } finally {
      await store.close();
    }
  }
  if (format === "json") {
    process.stdout.write(`${JSON.stringify({ cache: stats }, null, 2)}\n`);
    return 0;
  }
  const saved = (u: { input_tokens: number; output_tokens: number }) =>
    `${count(u.input_tokens)} in + ${count(u.output_tokens)} out`;
  const lines = [
    `verdict cache in ${redactUrl(location)}`,
    `entries ${count(stats.entries)} · hits ${count(stats.hits)} · size ${bytes(stats.bytes)} · tokens saved ${saved(stats.saved_usage)}`,
  ];
  if (stats.by_model.length > 0) {
    const rows = [["provider:model", "entries", "hits", "size", "tokens saved"]];
    for (const m of stats.by_model)
      rows.push([
        `${m.provider}:${m.model}`,
        count(m.entries),
        count(m.hits),
        bytes(m.bytes),
        saved(m.saved_usage),
      ]);
    lines.push("", table(rows));
  } else lines.push("(empty: verdicts of live judges are cached as they are judged)");
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

export async function cacheClear(flags: CacheFlags): Promise<number> {
  const location = storeLocation(flags);
  const filter = parseModel(flags.model);
  if (!storeExists(location)) {
    process.stdout.write(`no store at ${redactUrl(location)}: nothing to clear\n`);
    return 0;
  }
  const store = await openStore(location);
  try {
    const removed = await store.verdictCache.clear(filter);
    const which = flags.model ? ` of ${flags.model}` : "";
    process.stdout.write(
      `cleared ${count(removed)} cached verdict${removed === 1 ? "" : "s"}${which} from ${store.location}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

/** `gpt-4o-mini` (any provider) or `openai:gpt-4o-mini`. */
function parseModel(model: string | undefined): { model?: string; provider?: string } {
  if (model === undefined) return {};
  if (model.trim() === "")
    throw new InputError("expected a model such as gpt-4o-mini or openai:gpt-4o-mini", { place: "--model" });
  const colon = model.indexOf(":");
  const provider = colon > 0 ? model.slice(0, colon) : undefined;
  if (provider && (JUDGE_PROVIDERS as readonly string[]).includes(provider))
    return { provider, model: model.slice(colon + 1) };
  return { model };
}

function count(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 ** 2).toFixed(1)} MiB`;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
