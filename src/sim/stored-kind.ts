// The simulation kind read back: a stored world simulation by id, the list of them, its report, the API's
// schemas. Its dashboard pages are the generic ones; `--format html` prints its text, as it always has.
import { z } from "zod";
import { type StoredKind, storedListTable } from "../engine/index.ts";
import { renderSimulation } from "./simulation-report.ts";
import {
  listSimulationResults,
  loadSimulationResult,
  SIMULATION_RESULT_FORMAT,
  type SimulationResultDocument,
} from "./simulation-result.ts";

type StoredSimulationDocument = SimulationResultDocument & { evaluation_id: string };
type SimulationLine = Awaited<ReturnType<typeof listSimulationResults>>[number];

export const simulationKind: StoredKind<StoredSimulationDocument, SimulationLine> = {
  kind: "simulation",
  noun: "simulation",
  section: "simulations",
  format: SIMULATION_RESULT_FORMAT,
  load: (store, id) => loadSimulationResult({ store, id }),
  list: (store, query) => listSimulationResults({ store, ...query }),
  text: renderSimulation,
  markdown: renderSimulation,
  json: (document) => document,
  listTable: (rows) =>
    storedListTable(
      rows,
      "steps  messages  gate checks  world",
      (r) =>
        `${String(r.steps ?? "–").padStart(5)}  ${String(r.messages ?? "–").padStart(8)}  ${String(r.gate_checks ?? "–").padStart(11)}  ${r.world}`,
    ),
  readBack: "evaluation",
  htmlReport: false,
  api: {
    list: {
      summary: "stored world simulations, newest first",
      description: "a page of simulations: id, status, world, steps, messages, gate checks",
      agent: "only simulations this agent took part in (its id)",
      row: z.looseObject({ id: z.string() }),
    },
    one: {
      summary: "one stored simulation's document",
      description: "the document",
      conflict: "the simulation did not complete",
      document: z.looseObject({ format: z.string(), evaluation_id: z.string() }).meta({
        id: "SimulationResult",
        description: "dramaturg.simulation-result/v1 with its evaluation id",
      }),
    },
  },
};
