// `dramaturg corrections stats`: the action gate's statistics over the stored correction logs, as TinyTroupe
// keeps them, each agent's similarity failures judged by its own max_action_similarity.
import { type Command, Option } from "commander";
import { setExitCode } from "../exit-code.ts";
import { examples } from "../help-examples.ts";

export interface CorrectionsStatsFlags {
  agent?: string;
  run?: string;
  since?: string;
  format?: string;
  db?: string;
  config?: string;
}

export function registerCorrectionsCommand(program: Command): void {
  const corrections = program
    .command("corrections")
    .description("the action gate's stored checks: statistics per agent or over all");
  corrections
    .command("stats")
    .description(
      "regeneration failure rate, failures per dimension, similarity failures, mean and spread of scores, original success rate",
    )
    .option("--agent <id>", "only this agent's checks")
    .option(
      "--run <id>",
      "only one run's checks: a simulation's id (or its first 8+ characters), or a run id given to the gate",
    )
    .option("--since <time>", "only checks logged at or after this time (ISO 8601, e.g. 2026-03-01)")
    .addOption(new Option("--format <format>", "output format").choices(["table", "json"]).default("table"))
    .option("--db <location>", "store location (default .dramaturg)")
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      examples(
        "dramaturg corrections stats",
        "dramaturg corrections stats --agent marta --format json",
        "dramaturg corrections stats --run 3f2a91c0",
      ),
    )
    .action(async (flags: CorrectionsStatsFlags) => setExitCode(await correctionsStatsCommand(flags)));
}

export async function correctionsStatsCommand(flags: CorrectionsStatsFlags): Promise<number> {
  const [
    { correctionStatisticsTable, InputError },
    { tableOrJson },
    { resolveSettings },
    { openStore, resolveAgentConfig, storeExists },
    { findEvaluation },
  ] = await Promise.all([
    import("../../core/index.ts"),
    import("../flags.ts"),
    import("../settings.ts"),
    import("../../store/index.ts"),
    import("../../engine/index.ts"),
  ]);
  const format = tableOrJson(flags.format);
  const since = flags.since === undefined ? undefined : sinceFlag(flags.since, InputError);
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  if (!storeExists(settings.db))
    throw new InputError("no store here to read correction logs from", { place: settings.db });
  const store = await openStore(settings.db);
  try {
    const stored = new Map((await store.agentConfig.list()).map((row) => [row.agent_id, row]));
    // A simulation's id may be shortened as `simulations` prints it; any other run id is matched as given.
    const run =
      flags.run === undefined || flags.run.length >= 36
        ? flags.run
        : await findEvaluation(store, flags.run, { kind: "simulation", place: "--run" }).then(
            (e) => (e.kind === "simulation" ? e.id : flags.run),
            (error) => {
              if (InputError.isInstance(error)) return flags.run;
              throw error;
            },
          );
    const statistics = await store.corrections.statistics(
      { agent_id: flags.agent, run_id: run, since },
      {
        maxActionSimilarity: (agent) =>
          resolveAgentConfig(agent, stored.get(agent), settings.corrections).config.max_action_similarity,
      },
    );
    process.stdout.write(
      format === "json"
        ? `${JSON.stringify({ agent: flags.agent ?? null, run: run ?? null, since: since ?? null, statistics }, null, 2)}\n`
        : correctionStatisticsTable(statistics, flags.agent, run),
    );
    return 0;
  } finally {
    await store.close();
  }
}

/** `--since` as an ISO timestamp; anything Date cannot read is bad input. */
function sinceFlag(text: string, InputError: typeof import("../../core/index.ts").InputError): string {
  const at = Date.parse(text);
  if (Number.isNaN(at))
    throw new InputError(
      `--since must be a date or time (ISO 8601, e.g. 2026-03-01), got ${JSON.stringify(text)}`,
    );
  return new Date(at).toISOString();
}
