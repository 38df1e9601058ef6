// What a running evaluation tells its caller: a progress bar, a log line, a test's assertion.

export type ProgressEvent =
  /** The evaluation exists in the store; `total` judge requests are to be made (after reuse). */
  | { type: "started"; evaluation_id: string; total: number; reused_verdicts: number; resumed: boolean }
  /** `done` of `total` judge requests have been answered and their verdicts stored. */
  | { type: "judged"; done: number; total: number }
  /** The evaluation ended: completed; failed with the error the caller will receive; or interrupted, resumable. */
  | { type: "finished"; evaluation_id: string; status: "completed" | "failed" | "interrupted" }
  /** An interrupt was received: no new judge calls; those in flight get `grace_ms` to finish. */
  | { type: "interrupting"; in_flight_grace_ms: number };

export type ProgressListener = (event: ProgressEvent) => void;
