// What every route reads: the open store, and the judge that analyses posted sessions and traces.
import type { JudgeOption, JudgeSettings } from "../engine/index.ts";
import type { Store } from "../store/index.ts";

export interface ServerContext {
  store: Store;
  /** The judge of posted sessions and traces; `none` (the default) for the deterministic parts only. */
  judge: JudgeOption | "none";
  judgeSettings?: JudgeSettings;
}
