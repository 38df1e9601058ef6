// `dramaturg history`: an agent's scores over its completed runs in the store, as a sparkline and a small
// table, marking baselines and the points where judge, propositions or persona changed.
import { type Command, Option } from "commander";
import { AGENT_DIMENSIONS, ENVIRONMENT_DIMENSIONS, InputError } from "../../core/index.ts";
import { agentHistory, padColumns, sparkline } from "../../regression/index.ts";
import { openStore } from "../../store/index.ts";
import { setExitCode } from "../exit-code.ts";
import { limitFlag, tableOrJson } from "../flags.ts";
import { examples } from "../help-examples.ts";
import { resolveSettings } from "../settings.ts";

export interface HistoryFlags {
  agent: string;
  dimension?: string;
  format?: string;
  limit?: string;
  db?: string;
  config?: string;
}

export function registerHistoryCommand(program: Command): void {
  program
    .command("history")
    .description("an agent's scores over its stored runs: sparkline and table, or JSON")
    .requiredOption("--agent <id>", "the agent")
    .option("--dimension <dimension>", "adherence, consistency or fluency (default: the overall score)")
    .addOption(new Option("--format <format>", "output format").choices(["table", "json"]).default("table"))
    .option("--limit <n>", "the last N runs", "30")
    .option("--db <location>", "store location (default .dramaturg)")
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      examples(
        "dramaturg history --agent dov",
        "dramaturg history --agent ines --dimension adherence --format json",
      ),
    )
    .action(async (flags) => setExitCode(await historyCommand(flags)));
}

export async function historyCommand(flags: HistoryFlags): Promise<number> {
  const format = tableOrJson(flags.format);
  const limit = limitFlag(flags.limit, 30);
  const dimension = flags.dimension;
  if (dimension !== undefined && !(AGENT_DIMENSIONS as readonly string[]).includes(dimension))
    throw new InputError(
      (ENVIRONMENT_DIMENSIONS as readonly string[]).includes(dimension)
        ? `${dimension} is scored per channel, not per agent; expected one of ${AGENT_DIMENSIONS.join(", ")}`
        : `expected one of ${AGENT_DIMENSIONS.join(", ")} (or no --dimension for the overall score)`,
      { place: "--dimension" },
    );
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  const store = await openStore(settings.db);
  try {
    const agent = await store.agents.get(flags.agent);
    if (!agent) {
      const known = (await store.agents.list()).map((a) => `"${a.id}"`);
      throw new InputError(
        `unknown agent "${flags.agent}"${known.length ? `; the store has ${known.join(", ")}` : "; the store has no agents yet"}`,
        { place: "--agent" },
      );
    }
    const points = await store.runs.history({ agent: flags.agent, dimension, limit });
    const history = agentHistory(flags.agent, dimension ?? "overall", points);
    if (format === "json") {
      process.stdout.write(`${JSON.stringify(history, null, 2)}\n`);
      return 0;
    }
    if (history.points.length === 0) {
      process.stdout.write(`no completed runs of ${agent.name} in the store\n`);
      return 0;
    }
    const scores = history.points.map((p) => p.score);
    const known = scores.filter((s): s is number => s !== null);
    process.stdout.write(
      `${agent.name} · ${history.dimension} · ${history.points.length} runs  ${sparkline(scores)}  ${known.length ? `${Math.min(...known).toFixed(2)}–${Math.max(...known).toFixed(2)}` : ""}\n\n`,
    );
    const rows = [["date", "score", "judge", "baseline", "changed"]];
    for (const p of history.points)
      rows.push([
        p.at.slice(0, 16).replace("T", " "),
        p.score === null ? "–" : p.score.toFixed(2),
        (p.judge ?? "").slice(0, 48),
        p.is_baseline ? "★" : "",
        p.changed.length ? `⚠ ${p.changed.join(", ")}` : "",
      ]);
    process.stdout.write(`${padColumns(rows)}\n`);
    if (history.points.some((p) => p.changed.length))
      process.stdout.write(
        "\n⚠ marks a point whose judge, propositions or persona differ from the one before: scores across it are not comparable\n",
      );
    return 0;
  } finally {
    await store.close();
  }
}
