// The drift kind read back: a stored drift run by id, the list of them, its reports, the API's schemas. Its
// dashboard pages are the generic ones (its list and its text report, escaped).
import { z } from "zod";
import { type StoredKind, storedListTable } from "../engine/index.ts";
import { renderDriftMarkdown, renderDriftTable } from "./drift/drift-report.ts";
import { DRIFT_FORMAT } from "./drift/drift-result.ts";
import {
  type DriftLine,
  listDriftResults,
  loadDriftResult,
  type StoredDriftResult,
} from "./drift/stored-drift.ts";

export const driftKind: StoredKind<StoredDriftResult, DriftLine> = {
  kind: "drift",
  noun: "drift run",
  section: "drift",
  format: DRIFT_FORMAT,
  load: (store, id) => loadDriftResult({ store, id }),
  list: (store, query) => listDriftResults({ store, ...query }),
  text: renderDriftTable,
  markdown: renderDriftMarkdown,
  json: (document) => document,
  listTable: (rows) =>
    storedListTable(
      rows,
      "turns  seeds  probes  first below the bar",
      (r) =>
        `${String(r.turns ?? "–").padStart(5)}  ${String(r.seeds ?? "–").padStart(5)}  ${String(r.probes ?? "–").padStart(6)}  ${r.drops}`,
    ),
  readBack: "evaluation",
  htmlReport: false,
  api: {
    list: {
      summary: "stored drift runs, newest first",
      description:
        "a page of drift runs: id, status, turns, seeds, probes, each persona's first turn under the bar",
      agent: "only drift runs that probed this persona (its id)",
      row: z.looseObject({ id: z.string() }),
    },
    one: {
      summary: "one stored drift run's document",
      description: "the document",
      conflict: "the drift run did not complete",
      document: z.looseObject({ format: z.string(), evaluation_id: z.string() }).meta({
        id: "DriftResult",
        description: "dramaturg.drift/v1 with its evaluation id",
      }),
    },
  },
};
