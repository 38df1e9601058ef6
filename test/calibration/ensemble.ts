// The bundled ensemble as the calibration and labelling tests use it: its files, the hand-written example
// labels, and the ensemble evaluated with its hand-written fixture judge into a store.
import { fileURLToPath } from "node:url";
import type { Store } from "../../src/engine/index.ts";
import { createJudge } from "../../src/judge/index.ts";
import { type EvaluatePersonasOptions, evaluatePersonas } from "../../src/personas/index.ts";

export const ENSEMBLE = fileURLToPath(new URL("../../examples/ensemble/", import.meta.url));
export const ENSEMBLE_LABELS = [`${ENSEMBLE}labels/rater-a.yaml`, `${ENSEMBLE}labels/rater-b.csv`];

/** Evaluates the ensemble into `store` with its fixture judge (options may narrow it); returns the evaluation id. */
export async function evaluateEnsemble(
  store: Store,
  options: Partial<Pick<EvaluatePersonasOptions, "dimensions" | "agents" | "trials" | "judge">> = {},
): Promise<string> {
  const result = await evaluatePersonas({
    transcript: `${ENSEMBLE}transcript.json`,
    propositions: `${ENSEMBLE}propositions`,
    judge: createJudge(`fixtures:${ENSEMBLE}judge-fixtures.json`),
    store,
    ...options,
  });
  return result.evaluation_id;
}
