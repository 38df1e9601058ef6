// Where `dramaturg ci` finds the calibration its minimum agreement is checked against: a calibration file
// committed beside the baselines (CI stores are fresh), or the store's latest calibration of the same judge.
import { readFileSync } from "node:fs";
import { z } from "zod";
import { InputError, issuePath, parseJsonText, shownPath, validateInput } from "../core/index.ts";
import type { Store } from "../engine/index.ts";
import { CALIBRATION_FORMAT, type CalibrationResult } from "./calibrate.ts";

const Figure = z.number().nullable();

/** What `ci` reads of a calibration document; the rest of it is not checked here. */
const CalibrationFileSchema = z.object({
  format: z.literal(CALIBRATION_FORMAT),
  evaluation_id: z.string().nullable(),
  judge: z.object({ provider: z.string(), model: z.string() }).nullable(),
  propositions: z.array(
    z.object({
      dimension: z.string(),
      proposition_id: z.string(),
      rubric_hash: z.string(),
      kappa_quadratic: Figure,
      exact: Figure,
      n_judged: z.number().int().min(0),
      too_few: z.boolean(),
    }),
  ),
});

export type CalibrationFileFigures = z.infer<typeof CalibrationFileSchema>;

/** Reads a calibration document written by `dramaturg calibrate --format json --out FILE`. */
export function readCalibrationFile(file: string): CalibrationFileFigures {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new InputError("cannot read the calibration file", { file: shownPath(file) });
  }
  const parsed = validateInput(
    CalibrationFileSchema,
    parseJsonText(text, shownPath(file), `a ${CALIBRATION_FORMAT} document`),
  );
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(
      `${issue.message}; expected a ${CALIBRATION_FORMAT} document (dramaturg calibrate --format json)`,
      {
        file: shownPath(file),
        place: issuePath(issue.path) || "(root)",
      },
    );
  }
  return parsed.data;
}

/** The latest completed calibration of this judge (provider and model) in the store, if any. */
export async function latestCalibration(
  store: Store,
  judge: { provider: string; model: string },
): Promise<CalibrationResult | undefined> {
  // Newest first; a store holds few calibrations, so the first page nearly always has it.
  for (let after: { id: string; created_at: string } | undefined, page = 0; page < 20; page++) {
    const rows = await store.evaluations.list({ kind: "calibration", status: "completed", limit: 50, after });
    for (const row of rows) {
      const result = (await store.evaluations.result(row.id)) as CalibrationResult | undefined;
      if (result?.format !== CALIBRATION_FORMAT) continue;
      if (result.judge?.provider === judge.provider && result.judge.model === judge.model) return result;
    }
    if (rows.length < 50) return undefined;
    const last = rows.at(-1)!;
    after = { id: last.id, created_at: last.created_at };
  }
  return undefined;
}
