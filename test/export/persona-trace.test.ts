// Persona scores of imported traces go back to those traces: `eval` of a Langfuse export keeps each message's
// `source_ids`, and `export` puts each agent's scores on the session (else the one trace) its judged messages came
// from, checked by the Langfuse fake against the published schema; an OTLP import's on its trace or session in
// Phoenix, by `export` or by an online rule's worker; the run page links the traces. Judged offline (the imported
// traces' hand-written fixture judge).
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { exportScores, personaPlacement, readStoredScores, stableScoreId } from "../../src/export/index.ts";
import { OnlineTickSchema, openOnlineRun } from "../../src/online/index.ts";
import { evaluatePersonas } from "../../src/personas/index.ts";
import { exportOnlineRun } from "../../src/queue/online-export.ts";
import { createServerApp } from "../../src/server/index.ts";
import { readSessionsTranscript } from "../../src/sessions/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { openPgliteStore } from "../../src/store/open-sql-store.ts";
import { scriptedJudge } from "../../src/testing/index.ts";
import { cli, ROOT } from "../cli/run-cli.ts";
import { tempDir, useTempDir } from "../temp-dir.ts";
import { fakeLangfuse, fakePhoenix } from "./fake-tools.ts";

const LANGFUSE = `${ROOT}test/fixtures/langfuse/hand-written-support.json`;
const LANGSMITH = `${ROOT}test/fixtures/langsmith/hand-written-weather-runs.json`;
const OTLP = `${ROOT}test/fixtures/sessions/openinference-and-events.otlp.json`;
const JUDGE = [
  "--dimensions",
  "adherence",
  "--judge",
  `fixtures:${ROOT}test/fixtures/imported-traces/judge-fixtures.json`,
];
const SESSION = "support-session-42";
const TRACES = ["7f3c1e0a-0001-4c1e-9d7e-langfuse0001", "7f3c1e0a-0002-4c1e-9d7e-langfuse0002"];
afterEach(() => vi.unstubAllEnvs());
/** Retries wait in the test's record, not on the clock. */
const fast = { sleep: async () => {} };

/** `dramaturg eval … --format json` into a store: the evaluation's id. */
async function evalInto(db: string, args: readonly string[]): Promise<string> {
  const r = await cli(["eval", ...args, ...JUDGE, "--db", db, "--format", "json"]);
  expect(r.stderr).not.toMatch(/^dramaturg:/m);
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { evaluation_id: string }).evaluation_id;
}

/** Exports an evaluation's scores (propositions too) to a fresh Langfuse fake, by the CLI: the fake, closed. */
async function exportedToLangfuse(db: string, evaluationId: string) {
  const fake = await fakeLangfuse();
  try {
    const env = {
      LANGFUSE_PUBLIC_KEY: "pk-lf-test",
      LANGFUSE_SECRET_KEY: "sk-lf-test",
      LANGFUSE_BASE_URL: fake.url,
    };
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    const r = await cli(["export", evaluationId, "--to", "langfuse", "--propositions", "--db", db]);
    expect(r.stderr).not.toMatch(/^dramaturg:/m);
    expect(r.code).toBe(0);
    expect(fake.invalid).toEqual([]);
    return fake;
  } finally {
    await fake.close();
  }
}

describe("where an agent's persona scores go", () => {
  const langfuse = (session?: string, trace?: string) => ({
    source: "langfuse",
    ...(session ? { session_id: session } : {}),
    ...(trace ? { trace_id: trace } : {}),
  });

  it("all its judged messages of one session: on that session", () => {
    expect(personaPlacement([langfuse(SESSION, TRACES[0]), langfuse(SESSION, TRACES[1])])).toEqual({
      attach: { sessionId: SESSION },
      source: "langfuse",
      traces: TRACES,
    });
  });

  it("all of one trace and no session: on that trace", () => {
    expect(personaPlacement([langfuse(undefined, "t1"), langfuse(undefined, "t1")]).attach).toEqual({
      traceId: "t1",
    });
  });

  it("several traces of no one session, or a message with no ids: on none, the traces it spans named", () => {
    expect(personaPlacement([langfuse(undefined, "t2"), langfuse(undefined, "t1")])).toEqual({
      attach: {},
      source: "langfuse",
      traces: ["t1", "t2"],
    });
    expect(personaPlacement([langfuse("s", "t1"), undefined]).attach).toEqual({});
    expect(personaPlacement([])).toEqual({ attach: {}, traces: [] });
  });
});

describe("a Langfuse export evaluated and exported back", () => {
  const dir = useTempDir("persona-trace-");
  let db: string;
  let evaluationId: string;
  let runId: string;
  beforeAll(async () => {
    db = `${dir()}/store`;
    const r = await cli(["eval", LANGFUSE, ...JUDGE, "--db", db, "--format", "json"]);
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout) as { evaluation_id: string; runs: { run_id: string }[] };
    evaluationId = result.evaluation_id;
    runId = result.runs[0]!.run_id;
  });

  it("support-agent's scores go on the Langfuse session its messages came from, not a dataset run", async () => {
    const fake = await exportedToLangfuse(db, evaluationId);
    const adherence = fake.scores.get(stableScoreId(evaluationId, "persona|support-agent|adherence"))!;
    expect(adherence).toMatchObject({ name: "adherence", sessionId: SESSION });
    expect(adherence.traceId).toBeUndefined();
    // Every score, the propositions' too, on that session; no dataset, item, trace or run made for them.
    const sent = [...fake.scores.values()];
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.every((s) => s.sessionId === SESSION && s.traceId === undefined)).toBe(true);
    expect([fake.datasets.size, fake.items.size, fake.traces.size, fake.runItems.length]).toEqual([
      0, 0, 0, 0,
    ]);
  });

  it("the run page links the traces its judged messages came from, when the server knows the Langfuse host", async () => {
    const store = await openStore(db);
    try {
      const page = async (langfuseHost?: string, query = "") =>
        (
          await createServerApp({ store, langfuseHost }).request(`http://localhost/runs/${runId}${query}`)
        ).text();
      const linked = await page("https://langfuse.example/");
      expect(linked).toContain("<dt>Traces</dt>");
      for (const trace of TRACES) expect(linked).toContain(`href="https://langfuse.example/trace/${trace}"`);
      // Showing one dimension's verdicts, the page still links the traces of all the run's.
      const filtered = await page("https://langfuse.example/", "?dimension=adherence");
      for (const trace of TRACES)
        expect(filtered).toContain(`href="https://langfuse.example/trace/${trace}"`);
      const unlinked = await page(undefined);
      expect(unlinked).not.toContain("/trace/");
      expect(unlinked).not.toContain("<dt>Traces</dt>");
    } finally {
      await store.close();
    }
  });
});

/** The OTLP fixture's agents judged into `store`: the evaluation, and each agent's run by its id. */
async function evaluatedOtlp(store: Store): Promise<{ evaluationId: string; runs: Map<string, string> }> {
  // The fixture records no system prompts: the personas are given apart, as `eval --persona` does.
  const { transcript } = readSessionsTranscript([OTLP], {
    personas: { forecaster: "A terse forecaster.", assistant: "A helpful assistant." },
  });
  const result = await evaluatePersonas({
    transcript,
    dimensions: ["adherence"],
    judge: scriptedJudge(() => ({ score: 7, reasoning: "in character" })),
    store,
  });
  return {
    evaluationId: result.evaluation_id,
    runs: new Map(result.runs.map((r) => [r.agent_id, r.run_id])),
  };
}

describe("an OTLP import evaluated and exported to Phoenix", () => {
  let store: Store;
  let evaluationId: string;
  let runs: Map<string, string>;
  beforeAll(async () => {
    store = await openStore("memory://");
    ({ evaluationId, runs } = await evaluatedOtlp(store));
  });
  afterAll(() => store.close());

  it("forecaster's scores go on its session, assistant's (one trace, no session) on its trace", async () => {
    const read = await readStoredScores(store, evaluationId);
    expect(read.source).toBe("otlp");
    const attach = (agent: string) => read.scores.find((s) => s.metadata.agent_id === agent)!.attach;
    expect(attach("forecaster")).toEqual({ sessionId: "chat-7" });
    expect(attach("assistant")).toEqual({ traceId: "b".repeat(32) });
  });

  it("Phoenix annotates that session and trace, and the run page links the trace once it was exported there", async () => {
    const phoenix = await fakePhoenix({ spans: [], traces: ["b".repeat(32)], sessions: ["chat-7"] });
    try {
      const ledger = `${tempDir("persona-trace-phoenix-")}/ledger.json`;
      const page = async () =>
        (
          await createServerApp({ store, phoenixHost: phoenix.url, exportLedger: ledger }).request(
            `http://localhost/runs/${runs.get("assistant")}`,
          )
        ).text();
      expect(await page()).not.toContain("/redirects/traces/");
      const outcome = await exportScores({
        store,
        id: evaluationId,
        to: "phoenix",
        env: { PHOENIX_COLLECTOR_ENDPOINT: phoenix.url },
        ledger,
        ...fast,
      });
      expect(phoenix.invalid).toEqual([]);
      expect(outcome.left_out).toEqual([]);
      expect(outcome.sent).toBe(outcome.scores);
      const annotations = [...phoenix.annotations.values()];
      expect(annotations.find((a) => a.trace_id === "b".repeat(32))).toMatchObject({ name: "adherence" });
      expect(annotations.find((a) => a.session_id === "chat-7")).toMatchObject({ name: "adherence" });
      const linked = await page();
      expect(linked).toContain(`href="${phoenix.url}/redirects/traces/${"b".repeat(32)}"`);
    } finally {
      await phoenix.close();
    }
  });
});

describe("an OTLP import evaluated by an online rule, its scores exported to Phoenix by the worker", () => {
  let store: Store;
  let evaluationId: string;
  let runs: Map<string, string>;
  beforeAll(async () => {
    // Online runs are kept by a SQL store (memory:// keeps none): an in-memory PGlite.
    store = await openPgliteStore(undefined);
    ({ evaluationId, runs } = await evaluatedOtlp(store));
  });
  afterAll(() => store.close());

  it("the run page links the trace by the online run's export record, with no ledger; not for another Phoenix", async () => {
    const phoenix = await fakePhoenix({ spans: [], traces: ["b".repeat(32)], sessions: ["chat-7"] });
    try {
      const tick = OnlineTickSchema.parse({
        rule: {
          name: "otlp-voice",
          agents: ["assistant"],
          sample: { messages: 5 },
          schedule: "*/5 * * * *",
          export: { to: "phoenix" },
        },
        judge: "none",
        regression: 1,
        since: new Date(0).toISOString(),
      });
      // The page reads only the run's evaluation and export, not its window or sample.
      const run = await openOnlineRun(store, tick, "job-otlp-1");
      await store.online.setEvaluation(run.id, evaluationId);
      const page = async (phoenixHost: string) =>
        (
          await createServerApp({ store, phoenixHost }).request(
            `http://localhost/runs/${runs.get("assistant")}`,
          )
        ).text();
      expect(await page(phoenix.url)).not.toContain("/redirects/traces/");
      const logged: string[] = [];
      const record = await exportOnlineRun(store, tick, run, evaluationId, {
        env: { PHOENIX_COLLECTOR_ENDPOINT: phoenix.url },
        log: (line) => logged.push(line),
      });
      expect(logged).toEqual([]);
      expect(record).toMatchObject({ to: "phoenix", destination: phoenix.url, status: "exported" });
      expect(record!.sent).toBeGreaterThan(0);
      expect(phoenix.invalid).toEqual([]);
      // The dashboard's host given with a trailing slash is the same Phoenix.
      expect(await page(`${phoenix.url}/`)).toContain(
        `href="${phoenix.url}/redirects/traces/${"b".repeat(32)}"`,
      );
      // Another Phoenix than the one the scores went to: the trace is not known to be there.
      expect(await page("http://127.0.0.1:9")).not.toContain("/redirects/traces/");
    } finally {
      await phoenix.close();
    }
  });
});

describe("imported into the store, then judged from it", () => {
  it("import keeps each message's source_ids, so eval --from-store's scores go on the same Langfuse session", async () => {
    const db = `${tempDir("persona-trace-store-")}/store`;
    expect((await cli(["import", LANGFUSE, "--db", db])).code).toBe(0);
    const store = await openStore(db);
    try {
      const stored = await store.messages.query({ agent: "support-agent" });
      expect(stored.map((m) => m.source_ids?.langfuse_session_id)).toEqual([SESSION, SESSION]);
      expect(stored.map((m) => m.source_ids?.langfuse_trace_id)).toEqual(TRACES);
    } finally {
      await store.close();
    }
    const evaluationId = await evalInto(db, ["--from-store"]);
    const fake = await exportedToLangfuse(db, evaluationId);
    const sent = [...fake.scores.values()];
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.every((s) => s.sessionId === SESSION && s.traceId === undefined)).toBe(true);
    expect(fake.datasets.size).toBe(0);
  });
});

describe("ids from a tool the destination does not hold", () => {
  const dir = useTempDir("persona-trace-langsmith-");
  let db: string;
  let evaluationId: string;
  beforeAll(async () => {
    db = `${dir()}/store`;
    evaluationId = await evalInto(db, [LANGSMITH, "--from", "langsmith"]);
  });

  it("a LangSmith thread is no Langfuse session: the scores go to the dataset run instead", async () => {
    const store = await openStore(db);
    try {
      const read = await readStoredScores(store, evaluationId);
      // The thread's ids are known, and named as LangSmith's…
      expect(read.scores[0]).toMatchObject({ source: "langsmith", attach: { sessionId: "thread-9" } });
    } finally {
      await store.close();
    }
    // …but Langfuse is not given them: every score goes on the evaluation's dataset run.
    const fake = await exportedToLangfuse(db, evaluationId);
    const sent = [...fake.scores.values()];
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.some((s) => s.sessionId === "thread-9")).toBe(false);
    expect(sent.every((s) => typeof s.traceId === "string" && fake.traces.has(s.traceId))).toBe(true);
    expect(fake.datasets.size).toBe(1);
  });

  it("Phoenix leaves them out and says why", async () => {
    const phoenix = await fakePhoenix({ spans: [], traces: [], sessions: ["thread-9"] });
    const store = await openStore(db);
    try {
      const outcome = await exportScores({
        store,
        id: evaluationId,
        to: "phoenix",
        env: { PHOENIX_COLLECTOR_ENDPOINT: phoenix.url },
        ...fast,
      });
      expect(outcome.sent).toBe(0);
      expect(outcome.left_out).toEqual([
        { reason: "ids from langsmith, whose traces phoenix does not hold", count: outcome.scores },
      ]);
      expect(phoenix.annotations.size).toBe(0);
    } finally {
      await store.close();
      await phoenix.close();
    }
  });
});
