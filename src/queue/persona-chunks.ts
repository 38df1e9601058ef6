// Chunks of a queued persona evaluation: the chunked kind (jobs.ts) rebuilt from a stored persona evaluation
// (its configuration, the transcript and propositions kept with it, its plan).
import { personaEvaluation, storedPersonaEvaluation } from "../personas/index.ts";
import type { QueuedJobKind } from "./job-kind.ts";
import { type ChunkJob, chunkJobKind, PERSONA_CHUNKS } from "./jobs.ts";

export const personaChunks: QueuedJobKind<ChunkJob> = chunkJobKind({
  name: "persona",
  queue: PERSONA_CHUNKS,
  async rebuild(store, row) {
    const { prepared, config } = await storedPersonaEvaluation(store, row);
    return {
      evaluation: (judge) => personaEvaluation({ ...prepared, judge }),
      plan: prepared.plan,
      judge: config.judge,
      judgeBaseUrl: config.judge_base_url,
      mode: config.mode,
    };
  },
});
