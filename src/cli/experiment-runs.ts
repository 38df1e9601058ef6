// `experiment run` and `experiment table1` in this process: Ctrl-C keeps every finished environment run (the
// same command on the same store resumes), a line on stderr per experiment started and per environment run
// finished, and table1's result documents written as each experiment completes.
import type {
  ExperimentProgressEvent,
  ExperimentResultDocument,
  ExperimentRun,
  RunExperimentOptions,
  RunTable1Options,
  Scenario,
  Table1Comparison,
} from "../experiments/index.ts";
import { writeResultDocument } from "./experiment-output.ts";
import { withInterrupts } from "./interrupts.ts";

/** One line per experiment started and per environment run finished, on stderr. */
export function printProgress(event: ExperimentProgressEvent, prefix = ""): void {
  if (event.type === "started")
    process.stderr.write(
      `${prefix}experiment ${event.experiment_id.slice(0, 8)}: ${event.total} environment runs${event.reused ? `, ${event.reused} finished already` : ""}\n`,
    );
  else if (event.type === "environment" && (event.phase === "completed" || event.phase === "failed"))
    process.stderr.write(`  ${prefix}${event.arm} environment ${event.index + 1}: ${event.phase}\n`);
}

/** Runs (or resumes) one experiment here: its stored id and result document. */
export async function runExperimentHere(
  scenario: Scenario,
  options: Omit<RunExperimentOptions, "signal" | "onProgress">,
  name: string,
): Promise<ExperimentRun> {
  const { runExperiment } = await import("../experiments/index.ts");
  return withInterrupts(
    (signal) => runExperiment(scenario, { ...options, signal, onProgress: (event) => printProgress(event) }),
    { resumeWith: `dramaturg experiment run ${name} (the same flags and --db)` },
  );
}

/**
 * Runs (or resumes) the Table 1 experiments here, writing each one's document into `out` when given; the
 * comparison, and each experiment's result document.
 */
export async function runTable1Here(
  options: Omit<RunTable1Options, "signal" | "onProgress" | "onExperiment">,
  out: string | undefined,
): Promise<{ comparison: Table1Comparison; documents: ExperimentResultDocument[] }> {
  const { runTable1 } = await import("../experiments/index.ts");
  const table1 = await withInterrupts(
    (signal) =>
      runTable1({
        ...options,
        signal,
        onProgress: (id, event) => printProgress(event, `${id}: `),
        onExperiment: (run) => {
          if (out !== undefined) writeResultDocument(run.document, { folder: out });
        },
      }),
    { resumeWith: "dramaturg experiment table1 (the same flags and --db)" },
  );
  return { comparison: table1.comparison, documents: table1.runs.map((run) => run.document) };
}
