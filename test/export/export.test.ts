// `dramaturg export` against local fakes of Langfuse, Phoenix and an OTLP collector that check every request
// against the tools' published schemas: what arrives, that a second export changes nothing, and that 401, 429
// with Retry-After, 5xx and a partly refused batch lose nothing and resume.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ExportAuthError,
  ExportDeliveryError,
  exportScores,
  readStoredScores,
  retryAfterMs,
  stableScoreId,
} from "../../src/export/index.ts";
import { evaluatePersonas } from "../../src/personas/index.ts";
import { createServerApp } from "../../src/server/index.ts";
import { analyzeSession } from "../../src/sessions/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { scriptedJudge } from "../../src/testing/index.ts";
import { DEMO, ROOT } from "../cli/run-cli.ts";
import { tempDir } from "../temp-dir.ts";
import { fakeCollector, fakeLangfuse, fakePhoenix } from "./fake-tools.ts";

const OTLP = `${ROOT}test/fixtures/sessions/openinference-and-events.otlp.json`;
const KEYS = { LANGFUSE_PUBLIC_KEY: "pk-lf-test", LANGFUSE_SECRET_KEY: "sk-lf-test" };

let store: Store;
let persona: string;
let session: string;
const waits: number[] = [];
/** Retries wait in the test's record, not on the clock. */
const fast = { sleep: async (ms: number) => void waits.push(ms) };

beforeAll(async () => {
  store = await openStore("memory://");
  persona = (await evaluatePersonas({ transcript: DEMO[0]!, propositions: DEMO[2]!, judge: DEMO[4]!, store }))
    .evaluation_id;
  // A judge that gives each metric its own score, so every session metric has a value to export.
  const judge = scriptedJudge((item) => ({ score: 3 + (item.key.proposition_id.length % 7) }));
  session = (await analyzeSession(OTLP, { judge, store })).evaluation_id!;
});
afterAll(() => store.close());

describe("reading a stored evaluation's scores", () => {
  it("a persona run gives one 0–9 score per agent and dimension, with the judge's reasoning", async () => {
    const read = await readStoredScores(store, persona.slice(0, 8));
    expect(read.evaluationId).toBe(persona);
    expect(read.kind).toBe("persona");
    const adherence = read.scores.find((s) => s.name === "adherence" && s.metadata.agent_id === "ines")!;
    expect(adherence.scale).toEqual({ min: 0, max: 9 });
    expect(adherence.value).toBeCloseTo(6.794977168949772, 10);
    expect(adherence.comment).toContain("persona-traits");
    expect(adherence.id).toBe(stableScoreId(persona, "persona|ines|adherence"));
    expect(read.scores.every((s) => s.level === "dimension")).toBe(true);
    // A transcript whose messages keep no source ids: nothing to attach to, and no source named.
    expect(read.scores.every((s) => Object.keys(s.attach).length === 0)).toBe(true);
    expect(read.source).toBeUndefined();
    const withPropositions = await readStoredScores(store, persona, { propositions: true });
    expect(withPropositions.scores.filter((s) => s.level === "proposition").length).toBeGreaterThan(0);
  });

  it("a session imported from OTLP keeps its trace and span ids, so its scores go back onto them", async () => {
    const read = await readStoredScores(store, session);
    expect(read.kind).toBe("session");
    expect(read.source).toBe("otlp");
    const onSpan = read.scores.filter((s) => s.attach.spanId);
    expect(onSpan.map((s) => s.attach.spanId)).toContain("a000000000000001");
    expect(onSpan.find((s) => s.attach.spanId === "a000000000000001")!.attach.traceId).toBe("a".repeat(32));
    expect(read.scores.every((s) => s.value >= 0 && s.value <= 1)).toBe(true);
  });

  it("a conversation gives each pass's composite and tone (0–1), its tasks with --propositions", async () => {
    const row = await store.evaluations.create({
      kind: "conversation",
      source: "refund-desk.yml",
      agents: ["refund-bot"],
    });
    await store.evaluations.start(row.id);
    await store.evaluations.complete(row.id, {
      result: JSON.parse(
        readFileSync(`${ROOT}test/fixtures/kinds/refund-desk.conversation-result.json`, "utf8"),
      ),
    });
    const read = await readStoredScores(store, row.id.slice(0, 8), { propositions: true });
    expect(read.kind).toBe("conversation");
    expect(read.evaluationId).toBe(row.id);
    const first = read.scores.filter((s) => s.metadata.pass === "without_facts");
    expect(first.find((s) => s.name === "composite")).toMatchObject({
      value: 0.55,
      scale: { min: 0, max: 1 },
    });
    expect(first.find((s) => s.name === "tone")!.value).toBe(0.8);
    expect(first.filter((s) => s.name === "task").map((s) => s.comment)).toEqual([
      "asked twice for the order number",
      "promised an email",
    ]);
  });

  it("Retry-After is read as seconds or as a date", () => {
    expect(retryAfterMs("2")).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs("soon")).toBeUndefined();
  });
});

describe("Langfuse", () => {
  it("every dimension score arrives once, with a config per dimension; a second export changes nothing", async () => {
    const langfuse = await fakeLangfuse({
      configs: [
        { id: "kept-1", name: "fluency", dataType: "NUMERIC", minValue: 0, maxValue: 9, isArchived: false },
      ],
    });
    try {
      const env = { ...KEYS, LANGFUSE_BASE_URL: langfuse.url };
      const first = await exportScores({ store, id: persona, to: "langfuse", env, ...fast });
      const expected = (await readStoredScores(store, persona)).scores;
      expect(langfuse.invalid).toEqual([]);
      expect(first.sent).toBe(expected.length);
      expect([...langfuse.arrivals.values()].every((n) => n === 1)).toBe(true);
      expect(langfuse.scores.size).toBe(expected.length);
      const adherence = langfuse.scores.get(stableScoreId(persona, "persona|ines|adherence"))!;
      // No trace of its own: on the trace of ines's item in the dataset run named after the evaluation.
      expect(adherence.sessionId).toBeUndefined();
      expect(langfuse.items.get("dramaturg-persona-ines")).toMatchObject({
        input: { kind: "persona", unit: "ines" },
      });
      const [run] = [...langfuse.runs.values()];
      expect(run!.name).toBe(`dramaturg-${persona}`);
      expect(langfuse.runItems.find((r) => r.datasetItemId === "dramaturg-persona-ines")!.traceId).toBe(
        adherence.traceId,
      );
      expect(langfuse.traces.get(adherence.traceId as string)).toMatchObject({
        name: "dramaturg persona ines",
      });
      expect(adherence.comment).toContain("persona-traits");
      // The kept fluency config is reused; the others are made once, NUMERIC 0–9 (ideas_quantity has no top).
      expect(langfuse.scores.get(stableScoreId(persona, "persona|ines|fluency"))!.configId).toBe("kept-1");
      expect(langfuse.configs.map((c) => c.name).sort()).toEqual(
        ["adherence", "consistency", "convergence", "fluency", "ideas_quantity"].filter((n) =>
          expected.some((s) => s.name === n),
        ),
      );
      expect(langfuse.configs.find((c) => c.name === "adherence")).toMatchObject({
        minValue: 0,
        maxValue: 9,
      });

      // Run again with the same ledger... but this one was in memory: the upsert by id keeps the store as it was.
      const before = JSON.stringify([...langfuse.scores]);
      const made = [
        langfuse.datasets.size,
        langfuse.items.size,
        langfuse.traces.size,
        langfuse.runItems.length,
      ];
      await exportScores({ store, id: persona, to: "langfuse", env, ...fast });
      expect(JSON.stringify([...langfuse.scores])).toBe(before);
      // Nor a second dataset, item, trace or run item: every id is stable and the run's items are looked up.
      expect([
        langfuse.datasets.size,
        langfuse.items.size,
        langfuse.traces.size,
        langfuse.runItems.length,
      ]).toEqual(made);
      expect(langfuse.runItems.length).toBe(langfuse.items.size);
      expect(langfuse.configs.length).toBe(new Set(langfuse.configs.map((c) => c.name)).size);
    } finally {
      await langfuse.close();
    }
  });

  it("where Langfuse has no dataset runs any more (v4: the endpoint answers 404), the scores go on the evaluation's session", async () => {
    const langfuse = await fakeLangfuse();
    langfuse.inject((r) =>
      r.path.startsWith("/api/public/dataset-run-items") ? { status: 404 } : undefined,
    );
    try {
      const env = { ...KEYS, LANGFUSE_BASE_URL: langfuse.url };
      const outcome = await exportScores({ store, id: persona, to: "langfuse", env, ...fast });
      expect(outcome.refused).toEqual([]);
      expect(langfuse.invalid).toEqual([]);
      const adherence = langfuse.scores.get(stableScoreId(persona, "persona|ines|adherence"))!;
      expect(adherence.sessionId).toBe(`dramaturg-${persona}`);
      expect(adherence.traceId).toBeUndefined();
    } finally {
      await langfuse.close();
    }
  });

  it("with a ledger, exporting twice sends nothing the second time", async () => {
    const langfuse = await fakeLangfuse();
    const dir = tempDir("export-ledger");
    try {
      const env = { ...KEYS, LANGFUSE_BASE_URL: langfuse.url };
      const ledger = `${dir}/ledger.json`;
      await exportScores({ store, id: persona, to: "langfuse", env, ledger, ...fast });
      const requests = langfuse.log.length;
      const again = await exportScores({ store, id: persona, to: "langfuse", env, ledger, ...fast });
      expect(again.sent).toBe(0);
      expect(again.unchanged).toBe(again.scores);
      expect(langfuse.log.length).toBe(requests);
      expect(readFileSync(ledger, "utf8")).not.toContain("sk-lf-test");
    } finally {
      await langfuse.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a 429 mid-batch waits its Retry-After and every score still arrives exactly once", async () => {
    const langfuse = await fakeLangfuse();
    try {
      langfuse.inject((r) =>
        r.path === "/api/public/scores" && (r.n === 3 || r.n === 4)
          ? { status: 429, headers: { "retry-after": "2" }, body: { message: "rate limited" } }
          : undefined,
      );
      waits.length = 0;
      const outcome = await exportScores({
        store,
        id: persona,
        to: "langfuse",
        env: { ...KEYS, LANGFUSE_BASE_URL: langfuse.url },
        ...fast,
      });
      expect(waits).toContain(2000);
      expect(langfuse.log.filter((l) => l.status === 429).length).toBe(2);
      expect(outcome.sent).toBe(langfuse.scores.size);
      expect([...langfuse.arrivals.values()].every((n) => n === 1)).toBe(true);
      expect(langfuse.invalid).toEqual([]);
    } finally {
      await langfuse.close();
    }
  });

  it("5xx is retried with backoff; a server down for good stops with exit 3 and a rerun sends only the rest", async () => {
    const langfuse = await fakeLangfuse();
    const dir = tempDir("export-resume");
    try {
      const env = { ...KEYS, LANGFUSE_BASE_URL: langfuse.url };
      const ledger = `${dir}/ledger.json`;
      // One score's first two tries fail with 503 and are retried; from the 12th request on, the server is down.
      const flaky = stableScoreId(persona, "persona|dov|fluency");
      let flakyTries = 0;
      langfuse.inject((r) => {
        if (r.path !== "/api/public/scores") return undefined;
        if ((r.body as { id: string }).id === flaky && ++flakyTries <= 2) return { status: 503 };
        return r.n >= 12 ? { status: 503 } : undefined;
      });
      waits.length = 0;
      const error = await exportScores({
        store,
        id: persona,
        to: "langfuse",
        env,
        ledger,
        retries: 2,
        ...fast,
      }).catch((e) => e);
      expect(ExportDeliveryError.isInstance(error)).toBe(true);
      expect(error.exitCode).toBe(3);
      expect(flakyTries).toBeGreaterThanOrEqual(3);
      expect(langfuse.arrivals.get(flaky)).toBe(1);
      expect(waits).toEqual(expect.arrayContaining([500, 1000]));
      const arrived = langfuse.scores.size;
      expect(arrived).toBeGreaterThan(0);
      expect(existsSync(ledger)).toBe(true);

      langfuse.inject(() => undefined);
      const rerun = await exportScores({ store, id: persona, to: "langfuse", env, ledger, ...fast });
      expect(rerun.unchanged).toBe(arrived);
      expect(rerun.sent).toBe(rerun.scores - arrived);
      expect([...langfuse.arrivals.values()].every((n) => n === 1)).toBe(true);
    } finally {
      await langfuse.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a score refused on its own is tried once more and reported; the others arrive", async () => {
    const langfuse = await fakeLangfuse();
    try {
      const refusedId = stableScoreId(persona, "persona|priya|consistency");
      langfuse.inject((r) =>
        r.path === "/api/public/scores" && (r.body as { id?: string }).id === refusedId
          ? { status: 400, body: { message: "invalid value" } }
          : undefined,
      );
      const outcome = await exportScores({
        store,
        id: persona,
        to: "langfuse",
        env: { ...KEYS, LANGFUSE_BASE_URL: langfuse.url },
        ...fast,
      });
      expect(outcome.refused.map((r) => r.key)).toEqual(["persona|priya|consistency"]);
      expect(outcome.refused[0]!.reason).toContain("400");
      expect(langfuse.log.filter((l) => l.status === 400).length).toBe(2);
      expect(outcome.sent).toBe(outcome.scores - 1);
    } finally {
      await langfuse.close();
    }
  });

  it("refused keys are a plain exit-3 error that names the variables, never their values", async () => {
    const langfuse = await fakeLangfuse();
    try {
      const error = await exportScores({
        store,
        id: persona,
        to: "langfuse",
        env: {
          LANGFUSE_PUBLIC_KEY: "pk-wrong",
          LANGFUSE_SECRET_KEY: "sk-very-secret",
          LANGFUSE_BASE_URL: langfuse.url,
        },
        ...fast,
      }).catch((e) => e);
      expect(ExportAuthError.isInstance(error)).toBe(true);
      expect(error.exitCode).toBe(3);
      expect(error.message).toContain("LANGFUSE_SECRET_KEY");
      expect(error.message).not.toContain("sk-very-secret");
      expect(langfuse.scores.size).toBe(0);
    } finally {
      await langfuse.close();
    }
  });

  it("a host with credentials in it is refused before anything is sent (exit 2)", async () => {
    const error = await exportScores({
      store,
      id: persona,
      to: "langfuse",
      env: { ...KEYS, LANGFUSE_BASE_URL: "https://pk:sk-hidden@langfuse.example" },
      ...fast,
    }).catch((e) => e);
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain("LANGFUSE_BASE_URL must not hold credentials");
    expect(error.message).not.toContain("sk-hidden");
  });

  it("scores from an OTLP trace go on its trace and observation", async () => {
    const langfuse = await fakeLangfuse();
    try {
      await exportScores({
        store,
        id: session,
        to: "langfuse",
        env: { ...KEYS, LANGFUSE_BASE_URL: langfuse.url },
        ...fast,
      });
      expect(langfuse.invalid).toEqual([]);
      const onSpan = [...langfuse.scores.values()].filter((s) => s.observationId === "a000000000000001");
      expect(onSpan.length).toBe(1);
      expect(onSpan[0]).toMatchObject({ traceId: "a".repeat(32), name: "interaction" });
    } finally {
      await langfuse.close();
    }
  });
});

describe("Phoenix", () => {
  it("annotates the judged spans and sessions (LLM, label, score, explanation, identifier); twice changes nothing", async () => {
    const read = await readStoredScores(store, session);
    const phoenix = await fakePhoenix({
      apiKey: "px-key",
      spans: ["a000000000000001", "b000000000000001"],
      traces: ["a".repeat(32), "b".repeat(32)],
      sessions: ["chat-7"],
    });
    try {
      const env = { PHOENIX_COLLECTOR_ENDPOINT: phoenix.url, PHOENIX_API_KEY: "px-key" };
      const first = await exportScores({ store, id: session, to: "phoenix", env, ...fast });
      expect(phoenix.invalid).toEqual([]);
      expect(first.sent).toBe(read.scores.length);
      const span = [...phoenix.annotations.values()].find((a) => a.span_id === "a000000000000001")!;
      expect(span).toMatchObject({ annotator_kind: "LLM", name: "interaction" });
      expect(span.identifier).toMatch(/^[0-9a-f-]{36}$/);
      expect((span.result as { label: string }).label).toMatch(/^(pass|fail)$/);
      const before = JSON.stringify([...phoenix.annotations]);
      await exportScores({ store, id: session, to: "phoenix", env, ...fast });
      expect(JSON.stringify([...phoenix.annotations])).toBe(before);
    } finally {
      await phoenix.close();
    }
  });

  it("a batch refused for one unknown span is split: the others arrive, the unknown one is reported", async () => {
    const read = await readStoredScores(store, session);
    // Phoenix has not got span b000… (yet): its whole request is a 404.
    const phoenix = await fakePhoenix({
      spans: ["a000000000000001"],
      traces: ["a".repeat(32), "b".repeat(32)],
      sessions: ["chat-7"],
    });
    try {
      const outcome = await exportScores({
        store,
        id: session,
        to: "phoenix",
        env: { PHOENIX_COLLECTOR_ENDPOINT: phoenix.url },
        ...fast,
      });
      expect(phoenix.invalid).toEqual([]);
      expect(outcome.refused.length).toBe(
        read.scores.filter((s) => s.attach.spanId === "b000000000000001").length,
      );
      expect(outcome.refused.length).toBeGreaterThan(0);
      expect(outcome.sent).toBe(read.scores.length - outcome.refused.length);
    } finally {
      await phoenix.close();
    }
  });

  it("a persona run has no span or session from Phoenix: its scores are left out and counted", async () => {
    const phoenix = await fakePhoenix({ spans: [], sessions: [] });
    try {
      const outcome = await exportScores({
        store,
        id: persona,
        to: "phoenix",
        env: { PHOENIX_COLLECTOR_ENDPOINT: phoenix.url },
        ...fast,
      });
      expect(outcome.sent).toBe(0);
      expect(outcome.left_out[0]!.count).toBe(outcome.scores);
      expect(phoenix.log).toEqual([]);
    } finally {
      await phoenix.close();
    }
  });
});

describe("OTLP", () => {
  it("sends gen_ai.evaluation.result events on the judged span, with the evaluation attributes", async () => {
    const collector = await fakeCollector({ token: "otel-token" });
    try {
      const env = {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Bearer%20otel-token",
      };
      const outcome = await exportScores({ store, id: session, to: "otlp", env, ...fast });
      expect(collector.invalid).toEqual([]);
      expect(collector.records.length).toBe(outcome.scores);
      const onSpan = collector.records.find((r) => r.spanId === "a000000000000001")!;
      expect(onSpan.eventName).toBe("gen_ai.evaluation.result");
      expect(onSpan.traceId).toBe("a".repeat(32));
      const keys = onSpan.attributes!.map((a) => a.key);
      expect(keys).toEqual(
        expect.arrayContaining([
          "gen_ai.evaluation.name",
          "gen_ai.evaluation.score.value",
          "gen_ai.evaluation.score.label",
        ]),
      );
    } finally {
      await collector.close();
    }
  });

  it("a partial success is counted and not retried; the ledger keeps a second export from repeating any", async () => {
    const collector = await fakeCollector();
    const dir = tempDir("export-otlp");
    try {
      const env = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url };
      const ledger = `${dir}/ledger.json`;
      collector.rejectNext(2);
      const outcome = await exportScores({ store, id: persona, to: "otlp", env, ledger, ...fast });
      expect(outcome.rejected).toBe(2);
      expect(collector.records.length).toBe(outcome.scores - 2);
      const again = await exportScores({ store, id: persona, to: "otlp", env, ledger, ...fast });
      expect(again.sent).toBe(0);
      expect(collector.records.length).toBe(outcome.scores - 2);
    } finally {
      await collector.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the dashboard", () => {
  it("a session analysis's page links the traces it came from to Langfuse, when the server knows its host", async () => {
    const page = async (langfuseHost?: string) =>
      (await createServerApp({ store, langfuseHost }).request(`http://localhost/sessions/${session}`)).text();
    const linked = await page("https://langfuse.example/");
    expect(linked).toContain(`href="https://langfuse.example/trace/${"a".repeat(32)}"`);
    expect(linked).toContain(`href="https://langfuse.example/trace/${"b".repeat(32)}"`);
    expect(await page(undefined)).not.toContain("/trace/");
  });

  it("links the traces to Phoenix once the analysis was exported there (by the ledger), not before", async () => {
    const phoenix = await fakePhoenix({
      spans: ["a000000000000001", "b000000000000001"],
      traces: ["a".repeat(32), "b".repeat(32)],
      sessions: ["chat-7"],
    });
    const dir = tempDir("export-phoenix-link");
    try {
      const ledger = `${dir}/ledger.json`;
      const page = async () =>
        (
          await createServerApp({ store, phoenixHost: `${phoenix.url}/`, exportLedger: ledger }).request(
            `http://localhost/sessions/${session}`,
          )
        ).text();
      expect(await page()).not.toContain("/redirects/traces/");
      await exportScores({
        store,
        id: session,
        to: "phoenix",
        env: { PHOENIX_COLLECTOR_ENDPOINT: phoenix.url },
        ledger,
        ...fast,
      });
      const linked = await page();
      expect(linked).toContain("in Phoenix:");
      expect(linked).toContain(`href="${phoenix.url}/redirects/traces/${"a".repeat(32)}"`);
      // Exported to another Phoenix: no link to this one.
      const elsewhere = await (
        await createServerApp({ store, phoenixHost: "http://phoenix.example", exportLedger: ledger }).request(
          `http://localhost/sessions/${session}`,
        )
      ).text();
      expect(elsewhere).not.toContain("/redirects/traces/");
    } finally {
      await phoenix.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
