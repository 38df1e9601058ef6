// Golden baseline files from one measured evaluation: one <agent_id>.json per agent and _environments.json for
// the channels; shared by `dramaturg baseline` and `dramaturg init` (which writes the example's).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { round, shownPath } from "../core/index.ts";
import {
  baselineOf,
  ENVIRONMENT_BASELINE_FILE,
  environmentBaselineOf,
  type MeasurementInput,
  measurementOf,
  readEnvironmentBaseline,
  serializeBaseline,
} from "../regression/index.ts";

/**
 * Writes the baselines of `measured` into `dir` and returns one line per file written (its path and scores).
 * `previousEnvironments` is the folder's `_environments.json` as read before judging (its notes are kept).
 */
export function writeBaselineFiles(
  measured: MeasurementInput,
  dir: string,
  previousEnvironments = readEnvironmentBaseline(dir),
): string[] {
  const m = measurementOf(measured, dir);
  const written: string[] = [];
  mkdirSync(dir, { recursive: true });
  for (const agent of m.agents) {
    const file = join(dir, `${agent.agent_id}.json`);
    writeFileSync(file, serializeBaseline(baselineOf(m, agent.agent_id)));
    const scores = Object.entries(agent.dimensions)
      .map(([d, r]) => `${d} ${r.score === null ? "–" : round(r.score, 2).toFixed(2)}`)
      .join(" · ");
    written.push(`wrote ${shownPath(file)}  ${agent.name}: ${scores}`);
  }
  if (m.channels.some((c) => c.dimensions.convergence || c.dimensions.ideas_quantity)) {
    const file = join(dir, ENVIRONMENT_BASELINE_FILE);
    writeFileSync(file, serializeBaseline(environmentBaselineOf(m, previousEnvironments)));
    written.push(`wrote ${shownPath(file)}  ${m.channels.map((c) => `#${c.channel}`).join(", ")}`);
  }
  return written;
}
