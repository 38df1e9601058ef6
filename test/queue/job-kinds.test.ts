// The queues openQueue creates (queues.ts) are exactly those of the kinds a worker runs (job-kinds.ts), each
// with its kind's retries: a kind added to one list and not the other would have jobs nobody takes or a queue
// created with the wrong number of attempts.
import { describe, expect, it } from "vitest";
import { JOB_KINDS, jobKindsNamed } from "../../src/queue/index.ts";
import { QUEUES } from "../../src/queue/queues.ts";

describe("the kinds of queued job", () => {
  it("each has its queue, with its retries, and every queue has its kind", () => {
    const kinds = JOB_KINDS.map((k) => ({ name: k.queue, retryLimit: k.retryLimit }));
    expect([...kinds].sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      [...QUEUES].sort((a, b) => a.name.localeCompare(b.name)),
    );
    expect(JOB_KINDS.map((k) => k.name).sort()).toEqual([
      "conversation",
      "experiment",
      "online",
      "persona",
      "session",
    ]);
  });

  it("a worker's --kinds names them; an unknown one is bad input naming the known", () => {
    expect(jobKindsNamed(["online", "persona"]).map((k) => k.name)).toEqual(["online", "persona"]);
    expect(() => jobKindsNamed(["calibration"])).toThrow(
      /unknown job kind "calibration": expected persona, session/,
    );
  });
});
