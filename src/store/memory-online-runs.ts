// Online runs of the in-memory store: none. Online rules run on the queue, which only a PostgreSQL store has
// (a memory:// store lives in one process, which no worker can reach), so nothing can make a run here: the
// lists are empty, as the tables of a store no rule ran on are, and a write is refused, saying why.
import { StoreError } from "../core/index.ts";
import type { OnlineRepository } from "./online-runs.ts";

const refused = async (): Promise<never> => {
  throw new StoreError(
    "online rules run on the queue of a PostgreSQL store (postgres://…); memory:// keeps no online runs",
  );
};

export function memoryOnline(): OnlineRepository {
  return {
    runs: async () => [],
    alerts: async () => [],
    runOfJob: async () => undefined,
    exportsOfEvaluation: async () => [],
    openRun: refused,
    sampled: refused,
    windowMessages: refused,
    queuedEvaluation: refused,
    setEvaluation: refused,
    firstScore: refused,
    complete: refused,
    fail: refused,
    failJob: refused,
    alertsToPost: refused,
    setDelivery: refused,
    setExport: refused,
  };
}
