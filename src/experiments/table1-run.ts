// `experiment table1` without result files: runs the four Table 1 scenarios (or the ones given) one after
// another on one store, each as `runExperiment` runs it — stored, resumable, each skipping what finished —
// and holds their results against the published Table 1.
import { InputError } from "../core/index.ts";
import { openStore, type Store } from "../engine/index.ts";
import { listBuiltinScenarios } from "./builtin-scenarios.ts";
import { compareResultSets, parseResultSets } from "./compare.ts";
import {
  type ExperimentProgressEvent,
  type ExperimentRun,
  type RunExperimentOptions,
  runExperiment,
} from "./run-experiment.ts";
import type { Scenario } from "./scenario.ts";
import { compareWithTable1, TABLE1, TABLE1_ALPHA, type Table1Comparison } from "./table1.ts";

export interface RunTable1Options extends Omit<RunExperimentOptions, "store" | "onProgress"> {
  /**
   * The experiments to run, in order; each id must be one of Table 1's, each once. Default: the four built-in
   * scenarios.
   */
  scenarios?: readonly Scenario[];
  /** Where every experiment is kept (and resumed from): an open Store or a location. Default `memory://`. */
  store?: Store | string;
  /** Each experiment's progress, named by its scenario id. */
  onProgress?: (scenario: string, event: ExperimentProgressEvent) => void;
  /** Called as each experiment finishes, before the next starts (e.g. to write its document). */
  onExperiment?: (run: ExperimentRun) => void | Promise<void>;
}

export interface Table1Run {
  /** Each experiment's run, in the order run. */
  runs: ExperimentRun[];
  comparison: Table1Comparison;
}

/**
 * Runs each scenario's experiment and compares the lot with Table 1. Ids are checked before anything runs;
 * a failure or an interruption stops at that experiment (the finished ones stay stored, and the same call
 * on the same store resumes).
 */
export async function runTable1({
  scenarios: given,
  store: location,
  onProgress,
  onExperiment,
  ...options
}: RunTable1Options): Promise<Table1Run> {
  const scenarios = given ?? listBuiltinScenarios();
  const seen = new Set<string>();
  for (const [i, scenario] of scenarios.entries()) {
    if (!TABLE1.some((e) => e.id === scenario.id))
      throw new InputError(
        `scenario "${scenario.id}" is not an experiment of Table 1; expected one of ${TABLE1.map((e) => e.id).join(", ")}`,
        { place: `scenarios[${i}].id` },
      );
    if (seen.has(scenario.id))
      throw new InputError(`scenario "${scenario.id}" is given twice; expected each once`, {
        place: `scenarios[${i}].id`,
      });
    seen.add(scenario.id);
  }
  const opened = typeof location === "object" ? undefined : await openStore(location ?? "memory://");
  const store = typeof location === "object" ? location : opened!;
  try {
    const runs: ExperimentRun[] = [];
    for (const scenario of scenarios) {
      const run = await runExperiment(scenario, {
        ...options,
        store,
        onProgress: (event) => onProgress?.(scenario.id, event),
      });
      runs.push(run);
      await onExperiment?.(run);
    }
    const comparison = compareWithTable1(
      runs.map((run) => {
        const source = `experiment ${run.evaluation_id.slice(0, 8)}`;
        return {
          experiment: run.document.scenario.id,
          comparison: compareResultSets(parseResultSets(run.document, source), {
            alpha: TABLE1_ALPHA,
            file: source,
          }),
          source,
        };
      }),
    );
    return { runs, comparison };
  } finally {
    await opened?.close();
  }
}
