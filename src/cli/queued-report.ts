// How `show ID` and `runs` print evaluations that have not ended yet (queued, or being judged): their kind,
// status and progress, verdicts stored of those planned.
import type { QueuedProgress } from "../queue/index.ts";

const NOUN: Record<string, string> = {
  persona: "evaluation",
  session: "session analysis",
  conversation: "conversation run",
};

const count = (n: number) => n.toLocaleString("en-US");

/** One line per evaluation: `evaluation 1a2b3c4d (queued 2026-…) pending: 0 / 5,000 verdicts stored, 0 / 50 jobs`. */
export function renderProgress(evaluations: readonly QueuedProgress[]): string {
  return evaluations
    .map((p) => {
      const stored =
        p.planned === null
          ? `${count(p.stored)} verdicts stored`
          : `${count(p.stored)} / ${count(p.planned)} verdicts stored`;
      const jobs = p.jobs === null ? "" : `, ${count(p.jobs_done ?? 0)} / ${count(p.jobs)} jobs done`;
      const errored = p.errored > 0 ? `, ${count(p.errored)} errored` : "";
      const since = p.created_at.slice(0, 19).replace("T", " ");
      return `${NOUN[p.kind] ?? `${p.kind} evaluation`} ${p.evaluation_id.slice(0, 8)} (created ${since}) ${p.status}: ${stored}${errored}${jobs}`;
    })
    .join("\n");
}
