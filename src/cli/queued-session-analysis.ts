// `session analyze --queue`: the sessions read and checked and the judge built as in process (bad input
// writes nothing), the analysis stored and its judge calls queued for `dramaturg worker`s; then followed
// until it completes (its result), or with `detach` left to them. Only a PostgreSQL store is shared with
// workers.
import { InputError, parseStoreLocation } from "../core/index.ts";
import type { SessionsAnalysis } from "../sessions/index.ts";

export interface QueuedSessionAnalysisOptions {
  from?: string;
  tools?: string;
  expect?: string;
  successReward?: number;
  judge: string;
  judgeSettings: { baseUrl?: string; apiKeyEnv?: string };
  db: string;
  ccmThreshold: number;
  detach: boolean;
}

/** Queues the analysis of `files` and follows it to its result (none with `detach`). */
export async function analyzeQueued(
  files: string[],
  options: QueuedSessionAnalysisOptions,
): Promise<{ evaluationId: string; result?: SessionsAnalysis }> {
  if (parseStoreLocation(options.db).kind !== "postgres")
    throw new InputError(
      "--queue needs a PostgreSQL store that workers can reach: pass --db postgres://… (this store is local to this process)",
      { place: "--queue" },
    );
  if (options.judge === "none")
    throw new InputError("--queue queues judge calls; --judge none makes none (run it without --queue)", {
      place: "--judge",
    });
  const [{ prepareSessionAnalysis }, { prepareJudge, openStore }, queue] = await Promise.all([
    import("../sessions/index.ts"),
    import("../engine/index.ts"),
    import("../queue/index.ts"),
  ]);
  const prepared = prepareSessionAnalysis(files, {
    from: options.from,
    tools: options.tools,
    expect: options.expect,
    successReward: options.successReward,
  });
  const { checkQueueSettings, followTellingOfNoWorker } = await import("./queued-wait.ts");
  await checkQueueSettings();
  // Built to check it (a bad spec, a missing fixtures file or API key is bad input) and to describe it.
  const built = prepareJudge(options.judge, options.judgeSettings, { cache: false });
  try {
    const store = await openStore(options.db);
    try {
      const { evaluationId, jobs } = await queue.enqueueSessionAnalysis(prepared, {
        store,
        connectionString: options.db,
        judge: built.judge.descriptor,
        judgeSpec: options.judge,
        ccmThreshold: options.ccmThreshold,
      });
      if (options.detach) return { evaluationId };
      process.stderr.write(`queued session analysis ${evaluationId} as ${jobs} jobs; waiting for workers\n`);
      const waiting = { store, db: options.db, queue: queue.SESSION_CHUNKS, id: evaluationId };
      const analysis = await followTellingOfNoWorker(
        { ...waiting, matching: [{ evaluation_id: evaluationId }], what: `session analysis ${evaluationId}` },
        () => queue.followEvaluation<SessionsAnalysis>(store, evaluationId),
      );
      return { evaluationId, result: { ...analysis, evaluation_id: evaluationId } };
    } finally {
      await store.close();
    }
  } finally {
    await built.close();
  }
}
