// The red team's kinds read back. The drift kind: a stored drift run by id, the list of them, its reports, the API's schemas. Its
// dashboard pages are the generic ones (its list and its text report, escaped).
import { z } from "zod";
import { type StoredKind, storedListTable } from "../engine/index.ts";
import { renderRedteamMarkdown, renderRedteamTable } from "./attack/redteam-report.ts";
import { REDTEAM_FORMAT } from "./attack/redteam-result.ts";
import {
  listRedteamResults,
  loadRedteamResult,
  type RedteamLine,
  type StoredRedteamResult,
} from "./attack/stored-redteam.ts";
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

// The red-team kind: its dashboard page is its own (web/redteam-page.ts: strategies × success, the curves as
// SVG, each successful attack's transcript with the breaking turn marked).
export const redteamKind: StoredKind<StoredRedteamResult, RedteamLine> = {
  kind: "redteam",
  noun: "red-team run",
  section: "redteam",
  format: REDTEAM_FORMAT,
  load: (store, id) => loadRedteamResult({ store, id }),
  list: (store, query) => listRedteamResults({ store, ...query }),
  text: renderRedteamTable,
  markdown: renderRedteamMarkdown,
  json: (document) => document,
  listTable: (rows) =>
    storedListTable(
      rows,
      "persona       attacks  success rate (plain → gated)",
      (r) => `${(r.persona ?? "–").padEnd(12)}  ${String(r.attacks ?? "–").padStart(7)}  ${r.success}`,
    ),
  readBack: "evaluation",
  htmlReport: false,
  api: {
    list: {
      summary: "stored red-team runs, newest first",
      description: "a page of red-team runs: id, status, persona, attacks per arm, success rate per arm",
      agent: "only red-team runs that attacked this persona (its id)",
      row: z.looseObject({ id: z.string() }),
    },
    one: {
      summary: "one stored red-team run's document",
      description: "the document",
      conflict: "the red-team run did not complete",
      document: z.looseObject({ format: z.string(), evaluation_id: z.string() }).meta({
        id: "RedteamResult",
        description: "dramaturg.redteam/v1 with its evaluation id",
      }),
    },
  },
};
