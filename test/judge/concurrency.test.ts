// One concurrency setting with one meaning: the calls in flight at the model server are what the user set,
// through the library and the CLI alike, counted at the fake OpenAI-compatible server through the real
// provider client. A judge's own limit (judgeSettings.concurrency) holds them lower only when it is given.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { evaluatePersonas } from "../../src/personas/index.ts";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { cli } from "../cli/run-cli.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const transcript = `${ROOT}examples/ensemble/transcript.json`;
const propositions = `${ROOT}examples/ensemble/propositions`;

let server: FakeOpenAIServer;

beforeAll(async () => {
  // A latency long enough that every call the run allows is in flight at once.
  server = await startFakeOpenAIServer({ latencyMs: 25, recordRequests: false });
  process.env.DRAMATURG_TEST_CONCURRENCY_KEY = "sk-test-concurrency-0123456789";
});

afterAll(async () => {
  delete process.env.DRAMATURG_TEST_CONCURRENCY_KEY;
  await server.close();
});

beforeEach(() => {
  server.stats.maxInFlight = 0;
  server.stats.calls = 0;
});

/** Inés's adherence, one proposition a call: some 100 calls, several times any concurrency below. */
const library = (options: { concurrency?: number; judgeConcurrency?: number; judge?: string }) =>
  evaluatePersonas({
    transcript,
    propositions,
    agents: ["ines"],
    dimensions: ["adherence"],
    judge: options.judge ?? "openai-compatible:fake-model",
    judgeSettings: {
      baseUrl: server.url,
      apiKeyEnv: "DRAMATURG_TEST_CONCURRENCY_KEY",
      ...(options.judgeConcurrency !== undefined ? { concurrency: options.judgeConcurrency } : {}),
    },
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
  });

const cliEval = (...extra: string[]) =>
  cli([
    "eval",
    transcript,
    "--propositions",
    propositions,
    "--agents",
    "ines",
    "--dimensions",
    "adherence",
    "--judge",
    "openai-compatible:fake-model",
    "--judge-base-url",
    server.url,
    "--db",
    "memory://",
    "--no-progress",
    "--format",
    "json",
    ...extra,
  ]);

describe("the library's concurrency", () => {
  it("concurrency 16 keeps 16 calls in flight at the model server", async () => {
    const result = await library({ concurrency: 16, judge: "openai:gpt-4o-mini" });
    expect(result.totals.errored).toBe(0);
    expect(server.stats.calls).toBeGreaterThan(3 * 16);
    expect(server.stats.maxInFlight).toBe(16);
  });

  it("without a concurrency, the default 16 is in flight", async () => {
    await library({});
    expect(server.stats.maxInFlight).toBe(16);
  });

  it("a judge limit given in judgeSettings holds the calls in flight below the run's", async () => {
    await library({ concurrency: 16, judgeConcurrency: 4 });
    expect(server.stats.maxInFlight).toBe(4);
  });
});

describe("the CLI's --concurrency", () => {
  it("--concurrency 16 keeps 16 calls in flight at the model server", async () => {
    const r = await cliEval("--concurrency", "16");
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).totals.errored).toBe(0);
    expect(server.stats.calls).toBeGreaterThan(3 * 16);
    expect(server.stats.maxInFlight).toBe(16);
  });

  it("--concurrency 3 keeps 3", async () => {
    const r = await cliEval("--concurrency", "3");
    expect(r.code, r.stderr).toBe(0);
    expect(server.stats.maxInFlight).toBe(3);
  });
});
