// The calibration kind read back: a stored calibration by id, the list with headline figures, its reports,
// the API's schemas.
import { z } from "zod";
import { type StoredKind, storedListTable } from "../engine/index.ts";
import { CALIBRATION_FORMAT, type CalibrationResult } from "./calibrate.ts";
import { loadCalibration } from "./calibration-evaluation.ts";
import { type CalibrationListRow, listCalibrations } from "./calibration-list.ts";
import { renderCalibrationMarkdown, renderCalibrationTable } from "./calibration-report.ts";

const Interval = z.tuple([z.number(), z.number()]).nullable();

const CalibrationLine = z
  .object({
    id: z.string(),
    created_at: z.string(),
    status: z.string(),
    judge: z.object({ provider: z.string(), model: z.string() }).nullable(),
    judged: z.boolean().nullable(),
    calibrated_evaluation: z.string().nullable(),
    labels: z.array(z.string()),
    n: z.number().nullable(),
    n_judged: z.number().nullable(),
    kappa_quadratic: z.number().nullable(),
    kappa_ci: Interval,
    propositions: z.number().nullable(),
    flagged: z.number().nullable(),
    minimum_kappa: z.number().nullable(),
    warnings: z.array(z.string()),
  })
  .meta({
    id: "CalibrationLine",
    description: "a stored calibration with its overall κ and flagged propositions (null until it completed)",
  });

const figure = (value: number | null) => (value === null ? "–" : value.toFixed(2));

export const calibrationKind: StoredKind<CalibrationResult, CalibrationListRow> = {
  kind: "calibration",
  noun: "calibration",
  section: "calibrations",
  format: CALIBRATION_FORMAT,
  load: (store, id) => loadCalibration({ store, id }),
  list: (store, query) => listCalibrations({ store, ...query }),
  text: renderCalibrationTable,
  markdown: renderCalibrationMarkdown,
  json: (result) => result,
  listTable: (rows) =>
    storedListTable(
      rows,
      "items  κ overall  flagged  judge",
      (r) =>
        `${String(r.n ?? "–").padStart(5)}  ${figure(r.kappa_quadratic).padStart(9)}  ${String(r.flagged ?? "–").padStart(7)}  ${r.judge ? `${r.judge.provider}:${r.judge.model}` : "—"}`,
    ),
  readBack: "evaluation",
  htmlReport: true,
  api: {
    list: {
      summary: "stored calibrations of the judge against human labels, newest first",
      description: "a page of calibrations",
      agent: "only calibrations with labels of this agent (its id)",
      row: CalibrationLine,
    },
    one: {
      summary: "one stored calibration's document",
      description: "the document as stored",
      conflict: "the calibration did not complete, or was stored without its document",
      document: z
        .looseObject({ format: z.literal(CALIBRATION_FORMAT), evaluation_id: z.string().nullable() })
        .meta({ id: "Calibration", description: "the dramaturg.calibration/v1 document, as stored" }),
    },
  },
};
