// Continuous evaluation on PostgreSQL: an online rule's runs sample the messages imported since its last
// run, queue their evaluation for a worker, hold each agent's dimensions against its baseline run, and post
// exactly one alert per regression (open until a run finds the dimension back) to a local webhook.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Transcript } from "../../src/core/index.ts";
import { type OnlineTick, OnlineTickSchema, sampleMessages, webhookBody } from "../../src/online/index.ts";
import { evaluatePersonas } from "../../src/personas/index.ts";
import {
  onlineStatus,
  type RunningWorker,
  runOnlineRuleNow,
  scheduleOnlineRules,
  startWorker,
} from "../../src/queue/index.ts";
import { createServerApp } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
  syntheticTranscript,
} from "../../src/testing/index.ts";
import { ROOT } from "../cli/run-cli.ts";
import { fakeLangfuse } from "../export/fake-tools.ts";
import { dropFreshDatabases, freshDatabase, postgresSuite, postgresUrl as url } from "../postgres.ts";

describe("which messages an online rule samples", () => {
  const candidates = Array.from({ length: 2000 }, (_, i) => ({ source: "s", id: `m${i}`, sender: "a" }));

  it("a rate keeps about that share, the same ones every time, in the candidates' order", () => {
    const rule = { name: "voice", sample: { rate: 0.05 } };
    const first = sampleMessages(rule, candidates);
    expect(first.length).toBeGreaterThan(60);
    expect(first.length).toBeLessThan(140);
    expect(sampleMessages(rule, candidates)).toEqual(first);
    expect(first.map((m) => Number(m.id.slice(1)))).toEqual(
      first.map((m) => Number(m.id.slice(1))).sort((a, b) => a - b),
    );
    // Another rule draws other messages.
    expect(sampleMessages({ ...rule, name: "other" }, candidates)).not.toEqual(first);
  });

  it("a number of messages keeps exactly that many (all when there are fewer)", () => {
    expect(sampleMessages({ name: "voice", sample: { messages: 25 } }, candidates)).toHaveLength(25);
    expect(sampleMessages({ name: "voice", sample: { messages: 25 } }, candidates.slice(0, 7))).toHaveLength(
      7,
    );
  });
});

describe("an alert's body", () => {
  const alert = {
    format: "dramaturg.online-alert/v1" as const,
    rule: "voice",
    agent_id: "agent-1",
    dimension: "adherence",
    score: 2.5,
    baseline: 7.5,
    drop: 5,
    threshold: 1,
    evaluation_id: "e",
    window: { start: "a", end: "b" },
    sampled: 3,
    opened_at: "c",
    text: "agent <b> & co",
  };

  it("is the alert as JSON for any webhook, and Slack's escaped { text } for hooks.slack.com", () => {
    expect(JSON.parse(webhookBody("http://127.0.0.1:9/hook", alert))).toEqual(alert);
    expect(JSON.parse(webhookBody("https://hooks.slack.com/services/T0/B0/x", alert))).toEqual({
      text: "agent &lt;b&gt; &amp; co",
    });
  });
});

/** A batch of new traffic: the two agents' messages, ids of their own. */
function batch(n: number): Transcript {
  const t = syntheticTranscript({ messages: 24, agents: 2, channels: 1, seed: n });
  return { ...t, messages: t.messages.map((m) => ({ ...m, id: `b${n}-${m.id}` })) };
}

describe.skipIf(!url)(postgresSuite("online rules on the queue"), () => {
  let db: string;
  let store: Store;
  let fake: FakeOpenAIServer;
  let worker: RunningWorker;
  let webhook: Server;
  const posted: unknown[] = [];
  // The judge's score for every claim, changed between runs as an agent's behaviour would.
  let score = 8;
  let tick: OnlineTick;

  beforeAll(async () => {
    db = await freshDatabase("dramaturg_online");
    fake = await startFakeOpenAIServer({ scoreFor: () => score });
    webhook = createServer((request, response) => {
      let body = "";
      request.on("data", (d) => (body += d));
      request.on("end", () => {
        posted.push(JSON.parse(body));
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, "127.0.0.1", resolve));
    process.env.DRAMATURG_TEST_ONLINE_WEBHOOK = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/hook`;
    store = await openStore(db);
    const first = batch(1);
    await store.agents.upsert(first.agents);
    await store.messages.import("batch-1", first.messages);
    // The agents' baselines: their first traffic, judged at 8.
    await evaluatePersonas({
      transcript: first,
      judge: "openai-compatible:fake-model",
      judgeSettings: { baseUrl: fake.url },
      store,
      dimensions: ["adherence"],
      baseline: true,
      cache: false,
    });
    const [{ now }] = (await store.db!.query<{ now: Date }>("SELECT now()")).rows as [{ now: Date }];
    tick = {
      rule: {
        name: "voice",
        source: "messages",
        agents: ["agent-1"],
        sample: { rate: 0.5 },
        dimensions: ["adherence"],
        schedule: "*/5 * * * *",
        webhook_env: "DRAMATURG_TEST_ONLINE_WEBHOOK",
      },
      judge: "openai-compatible:fake-model",
      judge_base_url: fake.url,
      regression: 1,
      since: now.toISOString(),
    };
    worker = await startWorker({ store: db, concurrency: 8, cache: false });
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await store?.close();
    await fake?.close();
    await new Promise((resolve) => webhook?.close(resolve));
    delete process.env.DRAMATURG_TEST_ONLINE_WEBHOOK;
    await dropFreshDatabases();
  });

  /** Imports batch n, then runs the rule once its imports are past the window's one-second margin. */
  async function trafficThenRun(n: number) {
    await store.messages.import(`batch-${n}`, batch(n).messages);
    await sleep(1100);
    return runOnlineRuleNow(store, db, tick, { timeoutMs: 30_000 });
  }

  it("posts one alert when an agent falls below its baseline, none while it stays down, a new one after it recovered", async () => {
    const callsBefore = fake.stats.calls;
    const steady = await trafficThenRun(2);
    expect(steady).toMatchObject({ status: "completed", regressions: 0, messages: 12 });
    // Only agent-1's sampled messages were judged: fewer than its 12, more than none.
    expect(steady.sampled).toBeGreaterThan(0);
    expect(steady.sampled).toBeLessThan(12);
    expect(fake.stats.calls - callsBefore).toBeGreaterThan(0);
    expect(posted).toHaveLength(0);

    score = 2;
    const fallen = await trafficThenRun(3);
    expect(fallen).toMatchObject({ status: "completed", regressions: 1 });
    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatchObject({
      format: "dramaturg.online-alert/v1",
      rule: "voice",
      agent_id: "agent-1",
      dimension: "adherence",
      evaluation_id: fallen.evaluation_id,
    });

    const stillDown = await trafficThenRun(4);
    expect(stillDown.regressions).toBe(1);
    expect(posted).toHaveLength(1);

    score = 8;
    expect((await trafficThenRun(5)).regressions).toBe(0);
    score = 2;
    expect((await trafficThenRun(6)).regressions).toBe(1);
    expect(posted).toHaveLength(2);

    // The dashboard's agent page shows the open alert, linked to the run that found it.
    const page = await (await createServerApp({ store }).request("http://127.0.0.1/agents/agent-1")).text();
    expect(page).toContain("Online alerts");
    expect(page).toMatch(/1 open: a dimension below its baseline/);
    expect(page).toMatch(/<td>voice<\/td><td>adherence<\/td>/);

    // Windows follow each other: no message is looked at twice.
    const windows = (
      await store.db!.query<{ window_start: Date; window_end: Date }>(
        "SELECT window_start, window_end FROM online_runs ORDER BY window_start",
      )
    ).rows;
    for (let i = 1; i < windows.length; i++)
      expect(windows[i]!.window_start.getTime()).toBe(windows[i - 1]!.window_end.getTime());
  }, 120_000);

  it("a run with no new messages judges nothing", async () => {
    const calls = fake.stats.calls;
    const run = await runOnlineRuleNow(store, db, tick, { timeoutMs: 30_000 });
    expect(run).toMatchObject({ status: "empty", messages: 0, sampled: 0, evaluation_id: null });
    expect(fake.stats.calls).toBe(calls);
  }, 60_000);

  it("a run whose evaluation cannot be made ends failed with the reason, after its retries", async () => {
    await store.messages.import("batch-7", batch(7).messages);
    await sleep(1100);
    const run = await runOnlineRuleNow(
      store,
      db,
      { ...tick, propositions: "/nonexistent/propositions" },
      { timeoutMs: 30_000 },
    );
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/nonexistent/);
    expect(run.sampled).toBeGreaterThan(0);
  }, 60_000);

  it("a rule over sessions judges the sampled new sessions; its first run is the baseline, a fall alerts once", async () => {
    const app = createServerApp({ store });
    const refund = JSON.parse(readFileSync(join(ROOT, "examples/sessions/refund.session.json"), "utf8"));
    /** Sessions arriving as they do: posted to the API, analysed without a judge, stored. */
    async function post(ids: string[]) {
      for (const id of ids) {
        const response = await app.request("http://127.0.0.1/api/sessions/analyze?judge=none", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...refund, id }),
        });
        expect(response.status).toBe(200);
      }
      await sleep(1100);
    }
    const [{ now }] = (await store.db!.query<{ now: Date }>("SELECT now()")).rows as [{ now: Date }];
    const sessions: OnlineTick = {
      ...tick,
      rule: {
        name: "refunds",
        source: "sessions",
        agents: ["executor"],
        sample: { messages: 2 },
        dimensions: ["adherence", "consistency"],
        metrics: ["overall"],
        schedule: "*/10 * * * *",
        webhook_env: "DRAMATURG_TEST_ONLINE_WEBHOOK",
      },
      regression: 0.1,
      since: now.toISOString(),
    };
    const before = posted.length;
    score = 8;
    await post(["r-1", "r-2", "r-3"]);
    const first = await runOnlineRuleNow(store, db, sessions, { timeoutMs: 30_000 });
    expect(first).toMatchObject({ status: "completed", messages: 3, sampled: 2, regressions: 0 });
    // The sampled sessions were judged: an analysis of two sessions, queued as an online run's.
    const analysis = (await store.evaluations.result(first.evaluation_id!)) as { analyses: unknown[] };
    expect(analysis.analyses).toHaveLength(2);
    score = 2;
    await post(["r-4", "r-5"]);
    const fallen = await runOnlineRuleNow(store, db, sessions, { timeoutMs: 30_000 });
    expect(fallen).toMatchObject({ status: "completed", sampled: 2, regressions: 1 });
    expect(posted.slice(before)).toEqual([
      expect.objectContaining({ rule: "refunds", agent_id: "executor", dimension: "overall" }),
    ]);
    // The online run's own analyses are not new sessions for the next run.
    const empty = await runOnlineRuleNow(store, db, sessions, { timeoutMs: 30_000 });
    expect(empty).toMatchObject({ status: "empty", messages: 0 });
  }, 90_000);

  it("scheduling puts the rule on pg-boss's scheduler; status lists it with its runs and its open alert", async () => {
    await scheduleOnlineRules(store, db, [tick]);
    const status = await onlineStatus(store, db);
    expect(status.rules.map((r) => [r.rule.name, r.schedule])).toEqual([["voice", "*/5 * * * *"]]);
    expect(status.rules[0]!.runs.length).toBeGreaterThan(0);
    expect(status.rules[0]!.open_alerts.map((a) => [a.agent_id, a.dimension])).toEqual([
      ["agent-1", "adherence"],
    ]);
    // The webhook's URL is a secret: neither the schedule nor any alert keeps it.
    const kept = JSON.stringify(
      (await store.db!.query("SELECT data FROM pgboss.schedule")).rows.concat(
        (await store.db!.query("SELECT delivery FROM online_alerts")).rows,
      ),
    );
    expect(kept).not.toContain(process.env.DRAMATURG_TEST_ONLINE_WEBHOOK);
    expect(kept).toContain("DRAMATURG_TEST_ONLINE_WEBHOOK");
    await scheduleOnlineRules(store, db, []);
    expect((await onlineStatus(store, db)).rules).toEqual([]);
  }, 60_000);

  it("a rule with export: sends each completed run's scores; a refused export is kept on the run and logged, the run stays complete", async () => {
    const langfuse = await fakeLangfuse();
    const keys = ["LANGFUSE_PUBLIC_KEY", "LANGFUSE_SECRET_KEY", "LANGFUSE_BASE_URL"] as const;
    const saved = keys.map((k) => process.env[k]);
    const errors: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      errors.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof process.stderr.write;
    try {
      // The worker reads the keys from its own environment (here, this process's).
      Object.assign(process.env, {
        LANGFUSE_PUBLIC_KEY: "pk-lf-test",
        LANGFUSE_SECRET_KEY: "sk-lf-test",
        LANGFUSE_BASE_URL: langfuse.url,
      });
      const exporting = OnlineTickSchema.parse({
        ...tick,
        rule: { ...tick.rule, name: "voice-export", sample: { messages: 3 }, export: { to: "langfuse" } },
      });
      await store.messages.import("batch-8", batch(8).messages);
      await sleep(1100);
      const run = await runOnlineRuleNow(store, db, exporting, { timeoutMs: 30_000 });
      expect(run.status).toBe("completed");
      expect(run.export).toMatchObject({
        to: "langfuse",
        destination: langfuse.url,
        status: "exported",
        refused: 0,
      });
      expect(run.export!.sent).toBeGreaterThan(0);
      expect(langfuse.invalid).toEqual([]);
      const adherence = [...langfuse.scores.values()].find((s) => s.name === "adherence")!;
      expect(adherence.metadata).toMatchObject({ evaluation_id: run.evaluation_id });
      expect(langfuse.scores.size).toBe(run.export!.sent);

      // Refused keys: the run still completes, with its checks; the export's failure is kept and logged.
      process.env.LANGFUSE_SECRET_KEY = "sk-lf-not-this-one";
      await store.messages.import("batch-9", batch(9).messages);
      await sleep(1100);
      const refused = await runOnlineRuleNow(store, db, exporting, { timeoutMs: 30_000 });
      expect(refused.status).toBe("completed");
      expect(refused.regressions).not.toBeNull();
      expect(refused.export).toMatchObject({ to: "langfuse", status: "failed" });
      expect(refused.export!.error).toContain("LANGFUSE_SECRET_KEY");
      expect(JSON.stringify(refused)).not.toContain("sk-lf-not-this-one");
      expect(errors.join("")).toMatch(
        /online rule "voice-export": export of evaluation [0-9a-f]{8} to langfuse failed/,
      );
      expect(errors.join("")).not.toContain("sk-lf-not-this-one");
    } finally {
      process.stderr.write = write;
      keys.forEach((k, i) => {
        if (saved[i] === undefined) delete process.env[k];
        else process.env[k] = saved[i];
      });
      await langfuse.close();
    }
  }, 90_000);

  it("a rule's export names a tool it knows: any other is refused where the rule is read", () => {
    const bad = OnlineTickSchema.safeParse({ ...tick, rule: { ...tick.rule, export: { to: "datadog" } } });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(["rule", "export", "to"]);
  });
});
