// Chunks of a queued session analysis: the chunked kind (jobs.ts) rebuilt from a stored analysis (the sessions
// kept with it, their tool calls validated again, the judge it was started with). Sessions judge in batches.
import { rebuildSessionAnalysis, sessionEvaluation, sessionPlan } from "../sessions/index.ts";
import type { QueuedJobKind } from "./job-kind.ts";
import { type ChunkJob, chunkJobKind, SESSION_CHUNKS } from "./jobs.ts";

export const sessionChunks: QueuedJobKind<ChunkJob> = chunkJobKind({
  name: "session",
  queue: SESSION_CHUNKS,
  async rebuild(store, row) {
    const { prepared, judge, judgeBaseUrl, ccmThreshold } = await rebuildSessionAnalysis(store, row);
    return {
      evaluation: (descriptor) =>
        sessionEvaluation({ ...prepared, judge: descriptor, judgeSpec: judge, ccmThreshold }),
      plan: sessionPlan(prepared.sessions, prepared.validations),
      judge,
      judgeBaseUrl,
      mode: "batch",
    };
  },
});
