// One run of an online rule, as a queued job: the run's window and sample (online/), the evaluation of its
// sample queued for the workers (chunks, as `eval --queue` makes), and, once that completes, the run completed
// and its alerts posted (online/), then its scores exported when the rule says where. A job tried again (its
// worker killed) continues its own run.
import { setTimeout as sleep } from "node:timers/promises";
import { prepareJudge, type Store } from "../engine/index.ts";
import {
  completeOnlineRun,
  type OnlineTick,
  OnlineTickSchema,
  onlineRunSource,
  openOnlineRun,
  prepareOnlineSample,
} from "../online/index.ts";
import type { OnlineRunRow } from "../store/index.ts";
import { enqueuePersonaEvaluation, enqueueSessionAnalysis } from "./enqueue.ts";
import type { QueuedJobKind, WorkerContext } from "./job-kind.ts";
import { exportOnlineRun } from "./online-export.ts";
import { ONLINE_RETRY_LIMIT, ONLINE_TICKS } from "./queues.ts";

export const onlineTicks: QueuedJobKind<OnlineTick> = {
  name: "online",
  queue: ONLINE_TICKS,
  data: OnlineTickSchema,
  retryLimit: ONLINE_RETRY_LIMIT,
  run: runOnlineTick,
  // The run this job made (if it got so far) ends failed with the reason; the rule's next run starts after it.
  failed: async (_tick, error, { store }, job) => {
    await store.online.failJob(job.id, error instanceof Error ? error.message : String(error));
  },
};

/** The evaluation of a run's sample, queued once: a job tried again finds the one it queued by its source. */
async function queueEvaluation(tick: OnlineTick, context: WorkerContext, run: OnlineRunRow): Promise<string> {
  const { store } = context;
  const source = onlineRunSource(tick, run);
  let evaluationId = await store.online.queuedEvaluation(source);
  if (!evaluationId) {
    const judge = prepareJudge(
      tick.judge,
      { ...context.judgeSettings, baseUrl: context.judgeSettings?.baseUrl ?? tick.judge_base_url },
      { cache: false },
    );
    const queue = { store, connectionString: context.connectionString, judge: judge.judge.descriptor };
    try {
      const sample = await prepareOnlineSample(store, tick, run, source);
      ({ evaluationId } =
        sample.source === "sessions"
          ? await enqueueSessionAnalysis(sample.prepared, { ...queue, judgeSpec: tick.judge })
          : await enqueuePersonaEvaluation(sample.prepared, queue));
    } finally {
      await judge.close();
    }
  }
  await store.online.setEvaluation(run.id, evaluationId);
  return evaluationId;
}

/** Waits for the run's evaluation to end; its status. */
async function evaluationEnd(
  store: Store,
  evaluationId: string,
): Promise<{ status: string; error?: string }> {
  for (;;) {
    const row = await store.evaluations.get(evaluationId);
    if (!row) return { status: "failed", error: `evaluation ${evaluationId} is gone` };
    if (row.status === "completed" || row.status === "failed" || row.status === "interrupted")
      return { status: row.status, error: row.error ?? undefined };
    await sleep(250);
  }
}

async function runOnlineTick(tick: OnlineTick, context: WorkerContext, job: { id: string }): Promise<void> {
  const { store } = context;
  const run = await openOnlineRun(store, tick, job.id);
  if (run.status === "empty" || run.status === "failed") return;
  const evaluationId = run.evaluation_id ?? (await queueEvaluation(tick, context, run));
  const end = await evaluationEnd(store, evaluationId);
  if (end.status !== "completed") {
    await store.online.fail(
      run.id,
      `evaluation ${evaluationId} ${end.status}${end.error ? `: ${end.error}` : ""}`,
    );
    return;
  }
  await completeOnlineRun(store, tick, run, evaluationId);
  await exportOnlineRun(store, tick, run, evaluationId);
}
