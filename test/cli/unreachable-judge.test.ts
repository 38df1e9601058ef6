// A model whose server is not there — the judge, the agents', the simulated user's, the persona model — stops a
// command in seconds, with the URL and the fix, and exit 3: with the default timeout and retries, before the
// plan's calls each wait out their own.
import { existsSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeEndpoint } from "../../src/judge/index.ts";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { tempDir } from "../temp-dir.ts";
import { cli, DEMO, modelFlags, ROOT } from "./run-cli.ts";

/** A port that nothing listens on: taken, then freed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let silent: Server;
const sockets = new Set<Socket>();
let silentUrl: string;

beforeAll(async () => {
  // Accepts every connection and never writes a byte.
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}/v1`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
});

const evalAgainst = (url: string) => [
  "eval",
  `${ROOT}examples/ensemble/transcript.json`,
  "--propositions",
  `${ROOT}examples/ensemble/propositions`,
  "--judge",
  "openai-compatible:llama3.1",
  "--judge-base-url",
  url,
  "--db",
  "memory://",
  "--no-progress",
];

describe("an unreachable judge", () => {
  it("eval against a port nothing listens on exits 3 within 10 s, naming the URL and the fix", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const started = performance.now();
    const r = await cli(evalAgainst(url));
    expect(r.code, r.stderr).toBe(3);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(r.stderr).toContain(`the judge at ${url} cannot be reached: connection refused (ECONNREFUSED)`);
    expect(r.stderr).toMatch(/--judge-base-url/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("eval against a server that accepts and never answers exits 3 within 30 s with the defaults", async () => {
    const started = performance.now();
    const r = await cli(evalAgainst(silentUrl));
    expect(r.code, r.stderr).toBe(3);
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(r.stderr).toContain(`the judge at ${silentUrl} cannot be reached: no answer within 10 s`);
  }, 40_000);

  it("the probe takes any HTTP answer as reachable, and sends no judge call", async () => {
    const server = await startFakeOpenAIServer();
    try {
      await expect(probeEndpoint({ url: server.url })).resolves.toBeUndefined();
      expect(server.stats.calls).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("calibrate --judge exits 3 at once, naming the URL and the fix", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const r = await cli([
      "calibrate",
      "--labels",
      `${ROOT}examples/ensemble/labels/rater-a.yaml`,
      "--transcript",
      `${ROOT}examples/ensemble/transcript.json`,
      "--propositions",
      `${ROOT}examples/ensemble/propositions`,
      "--judge",
      "openai-compatible:llama3.1",
      "--judge-base-url",
      url,
      "--db",
      "memory://",
    ]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`the judge at ${url} cannot be reached: connection refused (ECONNREFUSED)`);
    expect(r.stdout).toBe("");
  });

  it("a fixture judge is never probed", async () => {
    const r = await cli([
      "eval",
      ...DEMO,
      "--judge-base-url",
      "http://127.0.0.1:9/v1",
      "--db",
      "memory://",
      "--no-progress",
    ]);
    expect(r.code, r.stderr).toBe(0);
  });
});

describe("an unreachable agents' model", () => {
  let judge: FakeOpenAIServer;
  beforeAll(async () => {
    judge = await startFakeOpenAIServer();
  });
  afterAll(async () => {
    await judge.close();
  });
  const flags = (agents: string) => modelFlags({ agents, judge: judge.url, db: "memory://" });

  it("simulate says which model, where and the fix, with exit 3 and no stack trace", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const r = await cli(["simulate", `${ROOT}test/fixtures/worlds/engine-room.yml`, ...flags(url)]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`the agents' model at ${url} cannot be reached: connection refused`);
    expect(r.stderr).not.toMatch(/AI_RetryError|\n\s+at /);
  });

  it("experiment run stops at once with the same message and exit 3", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const r = await cli([
      "experiment",
      "run",
      `${ROOT}test/fixtures/experiments/scenarios/two-tasters.yaml`,
      ...flags(url),
    ]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`the agents' model at ${url} cannot be reached: connection refused`);
    expect(r.stderr).not.toMatch(/AI_RetryError|\n\s+at /);
    expect(judge.stats.calls).toBe(0);
  });
});

describe("every other model a command calls", () => {
  let agent: FakeOpenAIServer;
  beforeAll(async () => {
    agent = await startFakeOpenAIServer({ respond: () => "Paris." });
  });
  afterAll(async () => {
    await agent.close();
  });

  it("converse names the simulated user's model, its URL and --user-base-url, with exit 3", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const job = join(tempDir("dramaturg-unreachable-"), "job.yml");
    writeFileSync(
      job,
      [
        "evaluator: { name: Socrates, voice: friendly, signoff: Bye }",
        `target: { user: u, chatbot: c, url: "${agent.url}" }`,
        "aspirationalAverage: 3000",
        "greetings: [Hello]",
        "tasks:",
        "  - { type: question, task: Ask the capital of France, acceptanceCriteria: Paris }",
        "",
      ].join("\n"),
    );
    const r = await cli([
      "converse",
      job,
      "--user-model",
      "openai-compatible:user",
      "--user-base-url",
      url,
      "--judge",
      `fixtures:${ROOT}test/fixtures/conversations/verdicts.json`,
      "--db",
      "memory://",
    ]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`the simulated user's model at ${url} cannot be reached: connection refused`);
    expect(r.stderr).toMatch(/--user-base-url/);
  });

  it("population generate names the persona model and --model-base-url, and writes nothing", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const out = join(tempDir("dramaturg-unreachable-"), "people");
    const r = await cli([
      "population",
      "generate",
      "average-customers",
      "--size",
      "3",
      "--out",
      out,
      "--model",
      "openai-compatible:people",
      "--model-base-url",
      url,
    ]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`the persona model at ${url} cannot be reached: connection refused`);
    expect(r.stderr).toMatch(/--model-base-url/);
    expect(existsSync(out)).toBe(false);
  });
});
