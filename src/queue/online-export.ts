// An online run's scores exported as it completes, when its rule says where (`export: { to: langfuse }`): the
// evaluation it completed sent through `dramaturg export`'s exporters, keys from the worker's environment. An
// export that fails never fails the run, which is complete and its alerts posted: what became of it is kept on
// the run (`online status` shows it) and written to the worker's log. A job tried again exports again, which the
// tools' upserts by the scores' stable ids make harmless.
import { exportByRule, undelivered, undeliveredLines } from "../export/index.ts";
import type { OnlineTick } from "../online/index.ts";
import type { OnlineRunExport, OnlineRunRow, Store } from "../store/index.ts";

/** Exports the run's evaluation; what became of it, also kept on the run. Never throws for a failed export. */
export async function exportOnlineRun(
  store: Store,
  tick: OnlineTick,
  run: OnlineRunRow,
  evaluationId: string,
  { env = process.env, log = (line: string): void => void process.stderr.write(line) } = {},
): Promise<OnlineRunExport | undefined> {
  const rule = tick.rule.export;
  if (!rule) return undefined;
  let record: OnlineRunExport;
  try {
    // A worker has no ledger file: the scores' stable ids make a second export update, not duplicate.
    const outcome = await exportByRule(rule, { store, id: evaluationId, env, ledger: undefined });
    const refused = undelivered(outcome);
    const problem = undeliveredLines(outcome)[0];
    record = {
      to: rule.to,
      destination: outcome.destination,
      status: refused > 0 ? "partial" : "exported",
      scores: outcome.scores,
      sent: outcome.sent,
      unchanged: outcome.unchanged,
      refused,
      ...(problem ? { error: problem } : {}),
      at: new Date().toISOString(),
    };
  } catch (error) {
    record = {
      to: rule.to,
      status: "failed",
      error: error instanceof Error ? error.message : String(error),
      at: new Date().toISOString(),
    };
  }
  await store.online.setExport(run.id, record);
  if (record.status !== "exported")
    log(
      `dramaturg worker: online rule "${tick.rule.name}": export of evaluation ${evaluationId.slice(0, 8)} to ${rule.to} ${record.status}: ${record.error ?? "some scores refused"}\n`,
    );
  return record;
}
