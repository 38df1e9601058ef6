// What every page reads: the open store, and the project's baselines (when the server was given a
// folder) with the regression threshold, for the reference lines and regression marks of the drift chart.
import type { BaselineFolder } from "../regression/index.ts";
import type { Store } from "../store/index.ts";

export interface DashboardContext {
  store: Store;
  /** The project's baselines (`dramaturg baseline`); without them the store's baseline runs are used. */
  baselines?: BaselineFolder;
  /** A regression is a 0–9 dimension more than this below its baseline (the project's `thresholds.regression`). */
  regressionThreshold: number;
  /** The Langfuse host traces are kept in (LANGFUSE_BASE_URL where the server runs): pages link traces there. */
  langfuseHost?: string;
  /** The Phoenix host (PHOENIX_COLLECTOR_ENDPOINT where the server runs): traces exported there are linked. */
  phoenixHost?: string;
  /** The export ledger beside the store (`dramaturg export`'s): what says a run was exported to Phoenix. */
  exportLedger?: string;
}
