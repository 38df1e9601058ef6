// Every kind of queued job, once: openQueue creates their queues, `dramaturg worker --kinds` picks among them.
import { InputError } from "../core/index.ts";
import { conversationJobs } from "./conversation-jobs.ts";
import { experimentEnvironments } from "./experiment-jobs.ts";
import type { QueuedJobKind } from "./job-kind.ts";
import { onlineTicks } from "./online-tick.ts";
import { personaChunks } from "./persona-chunks.ts";
import { sessionChunks } from "./session-chunks.ts";

// biome-ignore lint/suspicious/noExplicitAny: a list of kinds of different data; each validates its own.
export const JOB_KINDS: readonly QueuedJobKind<any>[] = [
  personaChunks,
  sessionChunks,
  onlineTicks,
  conversationJobs,
  experimentEnvironments,
];

/** The kinds named (all when none is), or an error naming the unknown one and the known. */
// biome-ignore lint/suspicious/noExplicitAny: as above.
export function jobKindsNamed(names?: readonly string[]): QueuedJobKind<any>[] {
  if (!names || names.length === 0) return [...JOB_KINDS];
  return names.map((name) => {
    const kind = JOB_KINDS.find((k) => k.name === name);
    if (!kind)
      throw new InputError(
        `unknown job kind "${name}": expected ${JOB_KINDS.map((k) => k.name).join(", ")}`,
        { place: "--kinds" },
      );
    return kind;
  });
}
