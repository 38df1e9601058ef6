// `dramaturg ci`: evaluate the agents that have baselines, compare, write the PR comment and JUnit XML,
// and exit 1 on a regression. Baselines are read and checked against the transcript before any judging.
import { writeFileSync } from "node:fs";
import { InputError, shownPath, type Transcript, transcriptChannels } from "../../core/index.ts";
import {
  type BaselineFolder,
  checkAgainstBaselines,
  ciExitCode,
  measurementOf,
  readBaselineFolder,
  renderCiJunit,
  renderCiMarkdown,
  renderCiTable,
} from "../../harness/index.ts";
import { tableOrJson } from "../flags.ts";
import type { EvalFlags } from "./eval.ts";
import { evaluate, setupEvaluation } from "./eval.ts";
import { measure } from "./measure.ts";

export interface CiFlags extends EvalFlags {
  markdown?: string;
  junit?: string;
}

/** Every baseline must name an agent (and channel) of the transcript: else it was made from another one. */
function checkBaselinesMatch(folder: BaselineFolder, transcript: Transcript): void {
  const agents = new Set(transcript.agents.map((a) => a.id));
  for (const [id, { file }] of folder.agents)
    if (!agents.has(id))
      throw new InputError(
        `the baseline is for agent "${id}", who is not in the transcript (agents: ${[...agents].map((a) => `"${a}"`).join(", ")}); delete the file or evaluate the transcript it was made from`,
        { file: shownPath(file), place: "agent.id" },
      );
  const env = folder.environments;
  if (!env) return;
  const channels = new Set(transcriptChannels(transcript));
  for (const channel of Object.keys(env.baseline.channels))
    if (!channels.has(channel))
      throw new InputError(
        `a baseline for channel "${channel}", which is not in the transcript (channels: ${[...channels].map((c) => `"${c}"`).join(", ")})`,
        { file: shownPath(env.file), place: `channels.${channel}` },
      );
}

export async function ciCommand(sources: string[], flags: CiFlags): Promise<number> {
  const format = tableOrJson(flags.format);
  const setup = setupEvaluation(sources, flags);
  const { settings } = setup;
  const folder = readBaselineFolder(settings.baselines);
  const notes: string[] = [];
  const selectAgents = (transcript: Transcript) => {
    checkBaselinesMatch(folder, transcript);
    const baselined = [...folder.agents.keys()];
    if (!settings.agents) return baselined;
    for (const a of settings.agents)
      if (!folder.agents.has(a))
        notes.push(`agent "${a}" has no baseline; run \`dramaturg baseline --agents ${a}\``);
    const chosen = baselined.filter((a) => settings.agents!.includes(a));
    if (chosen.length === 0)
      throw new InputError("none of these agents has a baseline", { place: "--agents" });
    return chosen;
  };
  if (flags.dryRun) {
    await evaluate(setup, { selectAgents, dryRun: { format } });
    return 0;
  }
  const measured = await measure(setup, { selectAgents });
  const { result } = measured;
  if (result.totals.verdicts === 0 && result.totals.errored > 0) {
    process.stderr.write("dramaturg: every verdict errored; the check could not complete\n");
    return 3;
  }
  const m = measurementOf(measured, settings.baselines);
  const report = checkAgainstBaselines(m, folder, {
    threshold: settings.thresholds.regression,
    trials: settings.trials,
  });
  report.notes.push(...notes);
  for (const s of [...report.agents, ...report.channels]) s.file = shownPath(s.file);
  if (result.totals.errored > 0)
    report.notes.push(`${result.totals.errored} verdicts errored and were left out of the scores`);
  if (flags.markdown) {
    writeFileSync(flags.markdown, renderCiMarkdown(report));
    process.stderr.write(`wrote ${flags.markdown}\n`);
  }
  if (flags.junit) {
    writeFileSync(flags.junit, renderCiJunit(report));
    process.stderr.write(`wrote ${flags.junit}\n`);
  }
  process.stdout.write(format === "json" ? `${JSON.stringify(report, null, 2)}\n` : renderCiTable(report));
  return ciExitCode(report);
}
