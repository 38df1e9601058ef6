// online_runs and online_alerts: an online rule's runs follow each other window after window, a job tried
// again finds its own run, a regression opens one alert until a run finds the dimension back, and reports
// read runs and alerts back. memory:// has no queue to run rules: its lists are empty, its writes refused.
import { expect, test } from "vitest";
import { StoreError } from "../../src/core/index.ts";
import type { NewOnlineRun, OnlineCandidate, OnlineRunCheck, Store } from "../../src/store/index.ts";
import { describeStore } from "./backends.ts";

const EPOCH = new Date(0).toISOString();
const everything = (candidates: OnlineCandidate[]) => candidates;

const check = (
  dimension: string,
  status: OnlineRunCheck["status"],
  score: number | null = status === "regression" ? 3 : 8,
): OnlineRunCheck => ({ agent_id: "marta", dimension, score, baseline: 8, status });

/**
 * Messages of `rule`'s agent (`<rule>-marta`) and of another (`<rule>-ana`), imported as if just after the
 * rule's last window ended (or a minute ago), so that its next run's window, which ends a second before now,
 * holds them. Each test's rule and agents are its own: the store is shared by the file's tests.
 */
async function importNew(store: Store, rule: string, source: string, ids: string[]) {
  await store.messages.import(
    source,
    ids.map((id, i) => ({
      id,
      sender: `${rule}-${i % 2 === 0 ? "marta" : "ana"}`,
      channel: "general",
      text: `message ${id}`,
      at: new Date(Date.UTC(2026, 0, 1, 12, 0, i)).toISOString(),
    })),
  );
  await store.db!.query(
    `UPDATE run_messages SET imported_at = COALESCE(
       (SELECT max(window_end) FROM online_runs WHERE rule = $2), now() - interval '1 minute'
     ) + interval '1 microsecond'
     WHERE source = $1`,
    [source, rule],
  );
  // The next window ends at least a millisecond later than the last.
  await new Promise((resolve) => setTimeout(resolve, 5));
}

describeStore("online runs and alerts", ({ kind, store }) => {
  const run = (rule: string, jobId: string): NewOnlineRun => ({
    rule,
    jobId,
    source: "messages",
    agents: [`${rule}-marta`],
    since: EPOCH,
  });

  test.skipIf(kind !== "memory")(
    "memory:// lists no runs, alerts or exports and refuses to make a run",
    async () => {
      expect(await store().online.runs()).toEqual([]);
      expect(await store().online.alerts({ agent: "marta" })).toEqual([]);
      expect(await store().online.runOfJob("job-1")).toBeUndefined();
      const evaluation = await store().evaluations.create({ source: "online:voice:run-1" });
      expect(await store().online.exportsOfEvaluation(evaluation.id)).toEqual([]);
      await expect(store().online.openRun(run("voice", "job-1"), everything)).rejects.toSatisfy(
        StoreError.isInstance,
      );
    },
  );

  test.skipIf(kind === "memory")(
    "a run samples the agents' messages imported in its window; the job tried again finds the same run",
    async () => {
      await importNew(store(), "window", "window-1", ["w1", "w2", "w3", "w4"]);
      const first = await store().online.openRun(run("window", "job-w1"), everything);
      expect(first).toMatchObject({ rule: "window", messages: 2, sampled: 2, status: "queued" });
      expect(first.window_start).toBe(EPOCH);
      expect(await store().online.sampled(first.id)).toEqual([
        { source: "window-1", id: "w1" },
        { source: "window-1", id: "w3" },
      ]);
      // Every sender's messages of the window, for the context of the sampled ones.
      const window = await store().online.windowMessages(first);
      expect(window.filter((m) => m.sender.startsWith("window-")).map((m) => [m.id, m.sender])).toEqual([
        ["w1", "window-marta"],
        ["w2", "window-ana"],
        ["w3", "window-marta"],
        ["w4", "window-ana"],
      ]);
      expect(await store().online.openRun(run("window", "job-w1"), () => [])).toEqual(first);
      expect(await store().online.runOfJob("job-w1")).toEqual({ id: first.id, status: "queued" });
      // The next run starts where this one ended, and finds nothing new.
      const next = await store().online.openRun(run("window", "job-w2"), everything);
      expect(next).toMatchObject({
        window_start: first.window_end,
        messages: 0,
        sampled: 0,
        status: "empty",
      });
    },
  );

  test.skipIf(kind === "memory")(
    "a regression opens one alert, which stays open while the dimension stays down and resolves once it is back",
    async () => {
      const queued = async (jobId: string) => {
        await importNew(store(), "alerts", `alerts-${jobId}`, [`${jobId}-m`]);
        return store().online.openRun(run("alerts", jobId), everything);
      };
      const down = await queued("job-a1");
      await store().online.complete("alerts", down.id, [
        check("adherence", "regression"),
        check("fluency", "ok"),
      ]);
      const open = await store().online.alerts({ agent: "marta", rule: "alerts", open: true });
      expect(open).toMatchObject([
        {
          rule: "alerts",
          dimension: "adherence",
          score: 3,
          baseline: 8,
          online_run_id: down.id,
          resolved_at: null,
        },
      ]);
      // Posted once: a run tried again finds nothing left to post.
      const [toPost] = await store().online.alertsToPost(down.id);
      expect(toPost).toMatchObject({ id: open[0]!.id, dimension: "adherence", score: 3, baseline: 8 });
      await store().online.setDelivery(toPost!.id, { status: "posted", attempts: 1, http_status: 204 });
      expect(await store().online.alertsToPost(down.id)).toEqual([]);
      expect((await store().online.alerts({ rule: "alerts" }))[0]?.delivery).toMatchObject({
        status: "posted",
      });
      // Completing the same run again changes nothing.
      await store().online.complete("alerts", down.id, [check("adherence", "ok")]);
      expect(await store().online.alerts({ rule: "alerts", open: true })).toHaveLength(1);

      const stillDown = await queued("job-a2");
      await store().online.complete("alerts", stillDown.id, [check("adherence", "regression")]);
      expect(await store().online.alerts({ rule: "alerts" })).toHaveLength(1);
      expect(await store().online.alertsToPost(stillDown.id)).toEqual([]);

      const back = await queued("job-a3");
      await store().online.complete("alerts", back.id, [check("adherence", "ok")]);
      expect(await store().online.alerts({ rule: "alerts", open: true })).toEqual([]);
      expect((await store().online.runs({ rule: "alerts" })).map((r) => [r.status, r.regressions])).toEqual([
        ["completed", 0],
        ["completed", 1],
        ["completed", 1],
      ]);
      expect(await store().online.runs({ id: down.id })).toMatchObject([{ id: down.id, regressions: 1 }]);
    },
  );

  test.skipIf(kind === "memory")(
    "a session metric's baseline is the score of the rule's first completed run that scored it",
    async () => {
      await importNew(store(), "first", "first-1", ["f1"]);
      const first = await store().online.openRun(run("first", "job-f1"), everything);
      expect(await store().online.firstScore("first", "marta", "overall")).toBeNull();
      await store().online.complete("first", first.id, [
        { agent_id: "marta", dimension: "overall", score: 0.75, baseline: null, status: "no-baseline" },
      ]);
      await importNew(store(), "first", "first-2", ["f2"]);
      const second = await store().online.openRun(run("first", "job-f2"), everything);
      await store().online.complete("first", second.id, [check("overall", "regression", 0.25)]);
      expect(await store().online.firstScore("first", "marta", "overall")).toBe(0.75);
    },
  );

  test.skipIf(kind === "memory")(
    "a queued run ends failed with its reason, by its id or by its job; an ended run stays as it is",
    async () => {
      await importNew(store(), "fail", "fail-1", ["x1"]);
      const byId = await store().online.openRun(run("fail", "job-x1"), everything);
      await store().online.fail(byId.id, "evaluation e failed: no judge");
      await importNew(store(), "fail", "fail-2", ["x2"]);
      const byJob = await store().online.openRun(run("fail", "job-x2"), everything);
      await store().online.failJob("job-x2", "the store went away");
      await store().online.fail(byJob.id, "too late");
      expect((await store().online.runs({ rule: "fail" })).map((r) => [r.status, r.error])).toEqual([
        ["failed", "the store went away"],
        ["failed", "evaluation e failed: no judge"],
      ]);
    },
  );

  test.skipIf(kind === "memory")(
    "a run keeps the evaluation it queued, found again by its source",
    async () => {
      await importNew(store(), "queued", "queued-1", ["q1"]);
      const made = await store().online.openRun(run("queued", "job-q1"), everything);
      const source = `online:queued:${made.id}`;
      expect(await store().online.queuedEvaluation(source)).toBeUndefined();
      const evaluation = await store().evaluations.create({ source });
      expect(await store().online.queuedEvaluation(source)).toBe(evaluation.id);
      await store().online.setEvaluation(made.id, evaluation.id);
      expect(await store().online.runs({ id: made.id })).toMatchObject([{ evaluation_id: evaluation.id }]);
    },
  );

  test.skipIf(kind === "memory")(
    "a run's export keeps its destination, and is found again by the run's evaluation",
    async () => {
      await importNew(store(), "exported", "exported-1", ["e1"]);
      const made = await store().online.openRun(run("exported", "job-e1"), everything);
      const evaluation = await store().evaluations.create({ source: `online:exported:${made.id}` });
      expect(await store().online.exportsOfEvaluation(evaluation.id)).toEqual([]);
      await store().online.setEvaluation(made.id, evaluation.id);
      // A run with no export yet has nothing to say.
      expect(await store().online.exportsOfEvaluation(evaluation.id)).toEqual([]);
      const record = {
        to: "phoenix",
        destination: "http://127.0.0.1:6006",
        status: "exported" as const,
        scores: 4,
        sent: 4,
        unchanged: 0,
        refused: 0,
        at: new Date().toISOString(),
      };
      await store().online.setExport(made.id, record);
      expect(await store().online.exportsOfEvaluation(evaluation.id)).toEqual([record]);
      expect((await store().online.runs({ id: made.id }))[0]!.export).toEqual(record);
      // Another evaluation's, and an id that is none, find nothing.
      const other = await store().evaluations.create({ source: "elsewhere" });
      expect(await store().online.exportsOfEvaluation(other.id)).toEqual([]);
      expect(await store().online.exportsOfEvaluation("not-an-id")).toEqual([]);
    },
  );
});
