// One persona evaluation for the harness commands (baseline, ci, record): every input is read and
// validated before the store is opened; the harness's measurementOf turns the outcome into a Measurement.
import { type EvaluateOptions, type EvaluationOutcome, type EvaluationSetup, evaluate } from "./eval.ts";

/** One evaluation (the same path as `dramaturg eval`), with the stored runs the harness reads hashes from. */
export async function measure(
  setup: EvaluationSetup,
  options: Omit<EvaluateOptions, "dryRun"> = {},
): Promise<EvaluationOutcome> {
  // Without a dry run, evaluate() always returns an outcome.
  return (await evaluate(setup, options))!;
}
