// queued_job_totals: what each queued job of an evaluation spent, kept per job (a job run again replaces its
// row) and read back in job order, for the sum the completion reports.
import { expect, test } from "vitest";
import { StoreError } from "../../src/core/index.ts";
import { describeStore } from "./backends.ts";

const spent = (calls: number) => ({
  requests: calls,
  calls,
  token_usage: { input_tokens: 10 * calls, output_tokens: calls },
});

describeStore("queued jobs' totals", ({ store }) => {
  test("each job's totals come back in job order, a job run again keeping its last", async () => {
    const e = await store().evaluations.create({ source: "queued.json" });
    const totals = store().queuedJobTotals;
    await totals.record(e.id, "96:96", spent(2));
    await totals.record(e.id, "0:96", spent(1));
    await totals.record(e.id, "96:96", spent(3));
    expect(await totals.list(e.id)).toEqual([spent(1), spent(3)]);
  });

  test("an evaluation without finished jobs has none", async () => {
    const e = await store().evaluations.create({ source: "queued.json" });
    expect(await store().queuedJobTotals.list(e.id)).toEqual([]);
  });

  test("a job of an evaluation that does not exist is refused", async () => {
    await expect(
      store().queuedJobTotals.record("00000000-0000-4000-8000-000000000000", "0:96", spent(1)),
    ).rejects.toSatisfy(StoreError.isInstance);
  });
});
