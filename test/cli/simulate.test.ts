// `dramaturg simulate` and `dramaturg eval --synthetic` as a user runs them: persona agents behind the fake
// OpenAI-compatible server (scripted send_message tool calls), hand-written judge verdicts, no network.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseTranscript } from "../../src/core/index.ts";
import {
  type FakeChatRequest,
  type FakeOpenAIServer,
  messageText,
  startFakeOpenAIServer,
} from "../../src/testing/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { cli, ROOT } from "./run-cli.ts";

const dir = useTempDir("dramaturg-simulate-");
const WORLD = `${ROOT}test/fixtures/worlds/harbour.yml`;
const VERDICTS = `fixtures:${ROOT}test/fixtures/worlds/harbour-verdicts.json`;
const LINES: Record<string, string> = {
  Ines: "Regulation 4.2: the quay stays clear after dark. A parade, then, before sunset.",
  Tomas: "A parade! And a fish market stall, like the year the storm took the pier.",
  Rosa: "What does a parade cost? I need numbers before I agree.",
};
let agents: FakeOpenAIServer;

beforeAll(async () => {
  agents = await startFakeOpenAIServer({
    respond: (request) => {
      const system = String(request.messages.find((m) => m.role === "system")?.content ?? "");
      const name = /^You are ([^.]+)\./.exec(system)?.[1] ?? "?";
      return {
        tool_calls: [{ name: "send_message", arguments: { channel: "harbour", text: LINES[name] ?? "…" } }],
      };
    },
  });
});
afterAll(async () => {
  await agents.close();
});

describe("dramaturg simulate", () => {
  it("writes the world's transcript, stores it, and reports what happened", async () => {
    const out = join(dir(), "harbour.json");
    const { code, stderr } = await cli([
      "simulate",
      WORLD,
      "--model",
      "openai-compatible:agents",
      "--base-url",
      agents.url,
      "--judge",
      VERDICTS,
      "--out",
      out,
      "--db",
      "memory://",
    ]);
    expect(stderr).toMatch(
      /simulated 2 steps: 6 messages \(0 dropped\), 6 agent calls, 0 judge calls, 2 interventions fired/,
    );
    expect(code).toBe(0);
    const transcript = parseTranscript(readFileSync(out, "utf8"), out);
    expect(transcript.messages).toHaveLength(7);
    expect(transcript.messages[0]!.sender).toBe("facilitator");
  });

  it("refuses a world that enables an intervention when no judge is given, before calling the model", async () => {
    const before = agents.stats.calls;
    const { code, stderr } = await cli([
      "simulate",
      WORLD,
      "--model",
      "openai-compatible:agents",
      "--base-url",
      agents.url,
      "--db",
      "memory://",
    ]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/agent "ines" enables an intervention .*--judge/);
    expect(agents.stats.calls).toBe(before);
  });

  it("runs the steps --steps asks for instead of the world's", async () => {
    const { code, stdout } = await cli([
      "simulate",
      WORLD,
      "--model",
      "openai-compatible:agents",
      "--base-url",
      agents.url,
      "--judge",
      VERDICTS,
      "--steps",
      "1",
      "--db",
      "memory://",
    ]);
    expect(code).toBe(0);
    const [first, ...rest] = parseTranscript(stdout).messages.map((m) => m.id);
    expect(first).toBe("s1-facilitator-1");
    expect(rest.sort()).toEqual(["s1-ines-1", "s1-rosa-1", "s1-tomas-1"]);
  });

  it("prints the world format's JSON Schema", async () => {
    const { code, stdout } = await cli(["schema", "world"]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).properties.format).toEqual({ type: "string", const: "dramaturg.world/v1" });
  });

  it("names the file and line of a mistake in the world", async () => {
    const { code, stderr } = await cli([
      "simulate",
      `${ROOT}test/fixtures/worlds/bad-channel.yml`,
      "--db",
      "memory://",
    ]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/bad-channel\.yml:10:\d+: /);
  });
});

describe("dramaturg eval --synthetic", () => {
  it("generates the world's transcript offline and prints the five dimensions", async () => {
    const { code, stdout, stderr } = await cli([
      "eval",
      "--synthetic",
      WORLD,
      "--model",
      "openai-compatible:agents",
      "--model-base-url",
      agents.url,
      "--judge",
      VERDICTS,
      "--db",
      "memory://",
      "--no-progress",
    ]);
    expect(stderr).toMatch(/simulated 2 steps of .*harbour\.yml: 6 messages, 2 interventions fired/);
    expect(code).toBe(0);
    expect(stdout).toMatch(/agent +sample +adherence +consistency +fluency/);
    for (const agent of ["Ines", "Tomas", "Rosa"])
      expect(stdout).toMatch(new RegExp(`${agent} +2 +7\\.74 +8\\.00 +7\\.36`));
    expect(stdout).toMatch(/channel +voice divergence +ideas/);
    expect(stdout).toMatch(/#harbour +5\.67 +2 /);
  });

  it("takes no transcript files alongside --synthetic", async () => {
    const { code, stderr } = await cli([
      "eval",
      "--synthetic",
      WORLD,
      `${ROOT}examples/ensemble/transcript.json`,
      "--judge",
      VERDICTS,
    ]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--synthetic generates its transcript/);
  });
});

describe("dramaturg simulate with the action gate", () => {
  // The drift of test/fixtures/corrections/drift.json: Marta answers like an assistant, then retries.
  const drift = JSON.parse(readFileSync(`${ROOT}test/fixtures/corrections/drift.json`, "utf8")) as {
    drift: string;
    retries: [string, string];
  };
  const ENGINE_ROOM = `${ROOT}test/fixtures/worlds/engine-room.yml`;
  let martas: FakeOpenAIServer;
  let judge: FakeOpenAIServer;
  const lastUser = (request: FakeChatRequest) =>
    messageText(request.messages.filter((m) => m.role === "user").at(-1)!);

  beforeAll(async () => {
    martas = await startFakeOpenAIServer({
      respond: (request) => {
        const system = messageText(request.messages.find((m) => m.role === "system")!);
        const prompt = lastUser(request);
        const text = !system.startsWith("You are Marta")
          ? "Is it the pump again?"
          : prompt.includes("Write attempt 3")
            ? drift.retries[1]
            : prompt.includes("Write attempt 2")
              ? drift.retries[0]
              : drift.drift;
        return { tool_calls: [{ name: "send_message", arguments: { channel: "engine-room", text } }] };
      },
    });
    // Hand-written scores by the message judged: the drift 1, the first retry 4, the second 9.
    judge = await startFakeOpenAIServer({
      scoreFor: (id, prompt) => {
        const score = prompt.includes(drift.retries[1]) ? 9 : prompt.includes(drift.retries[0]) ? 4 : 1;
        return id === "breaks-character" ? 9 - score : score;
      },
    });
  });
  afterAll(async () => {
    await Promise.all([martas.close(), judge.close()]);
  });

  const simulate = (db: string, more: string[] = []) =>
    cli([
      "simulate",
      ENGINE_ROOM,
      "--model",
      "openai-compatible:agents",
      "--base-url",
      martas.url,
      "--db",
      db,
      ...more,
    ]);
  const judged = () => ["--judge", "openai-compatible:judge", "--judge-base-url", judge.url];

  it("commits the corrected message, stores the check, and the store's setting turns the gate off", async () => {
    const db = join(dir(), "store");
    const first = await simulate(db, judged());
    expect(first.stderr).toMatch(
      /action gate: 1 checks, 0 passed, 1 corrected, 0 forced through, 0 timeouts/,
    );
    expect(first.code).toBe(0);
    const said = (stdout: string) =>
      parseTranscript(stdout)
        .messages.filter((m) => m.sender === "marta")
        .map((m) => m.text);
    expect(said(first.stdout)).toEqual([drift.retries[1]]);
    // The retry prompts carried the failed attempts and the propositions' recommendations.
    const retries = martas.stats.requests.map(lastUser).filter((p) => p.includes("Write attempt 3"));
    expect(retries).toHaveLength(1);
    expect(retries[0]).toContain(drift.retries[0]);
    expect(retries[0]).toContain("To improve:");

    const stats = await cli(["corrections", "stats", "--db", db, "--format", "json"]);
    expect(stats.code).toBe(0);
    expect(JSON.parse(stats.stdout).statistics).toMatchObject({
      checks: 1,
      outcomes: { corrected: 1, passed: 0, forced_through: 0 },
      original_successes: 0,
    });

    // Stored settings win over the world file's: with Marta's gate off, the drift is committed.
    expect(
      (await cli(["config", "agent", "set", "marta", "gate_adherence_enabled=false", "--db", db])).code,
    ).toBe(0);
    const off = await simulate(db);
    expect(off.code).toBe(0);
    expect(said(off.stdout)).toEqual([drift.drift]);
    expect(off.stderr).not.toMatch(/action gate:/);
    const after = await cli(["corrections", "stats", "--db", db, "--format", "json"]);
    expect(JSON.parse(after.stdout).statistics.checks).toBe(1);
  });

  it("gates the synthetic world of eval --synthetic with the evaluation's judge", async () => {
    const { code, stderr } = await cli([
      "eval",
      "--synthetic",
      ENGINE_ROOM,
      "--model",
      "openai-compatible:agents",
      "--model-base-url",
      martas.url,
      ...judged(),
      "--db",
      "memory://",
      "--no-progress",
    ]);
    expect(stderr).toMatch(/action gate: 1 checks, 0 passed, 1 corrected/);
    expect(code).toBe(0);
  });

  it("stores the run as a simulation that is listed, shown as simulate reported it, and names its gate checks", async () => {
    const db = join(dir(), "listed");
    const first = await simulate(db, judged());
    expect(first.code).toBe(0);
    const id = /simulation ([0-9a-f-]{36}) of engine-room\.yml/.exec(first.stderr)?.[1];
    expect(id).toBeDefined();
    expect((await simulate(db, judged())).code).toBe(0);

    const listed = await cli(["simulations", "--db", db, "--format", "json"]);
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.stdout).simulations;
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({ id, status: "completed", world: "engine-room.yml", gate_checks: 1 });
    const table = await cli(["simulations", "--db", db]);
    expect(table.stdout).toMatch(new RegExp(`${id!.slice(0, 8)} .* completed +1 +2 +1  engine-room\\.yml`));

    const shown = await cli(["show", id!.slice(0, 8), "--db", db]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^simulated 1 steps: 2 messages/);
    expect(first.stderr).toContain(shown.stdout);
    const document = JSON.parse((await cli(["show", id!, "--db", db, "--format", "json"])).stdout);
    expect(document).toMatchObject({
      format: "dramaturg.simulation-result/v1",
      evaluation_id: id,
      transcript: { messages: 2, source: `simulation:${id}` },
    });

    // Its gate checks carry its id: the run's statistics are its own check, not the other run's.
    const stats = await cli([
      "corrections",
      "stats",
      "--run",
      id!.slice(0, 8),
      "--db",
      db,
      "--format",
      "json",
    ]);
    expect(stats.code).toBe(0);
    expect(JSON.parse(stats.stdout)).toMatchObject({ run: id, statistics: { checks: 1 } });
    expect(JSON.parse(stats.stdout).statistics).toEqual(document.statistics);
    const all = await cli(["corrections", "stats", "--db", db, "--format", "json"]);
    expect(JSON.parse(all.stdout).statistics.checks).toBe(2);
  });

  it("counts each model's calls and tokens as its server received them, the gate's redrafts and judgements included", async () => {
    const db = join(dir(), "billed");
    const agentsBefore = { calls: martas.stats.calls, ...martas.stats.tokens };
    const judgeBefore = { calls: judge.stats.calls, ...judge.stats.tokens };
    const run = await simulate(db, judged());
    expect(run.code).toBe(0);
    const agentCalls = martas.stats.calls - agentsBefore.calls;
    const judgeCalls = judge.stats.calls - judgeBefore.calls;
    // Marta's draft and her two redrafts, Bob's one turn; one judgement of each of Marta's three attempts.
    expect([agentCalls, judgeCalls]).toEqual([4, 3]);

    const id = /simulation ([0-9a-f-]{36})/.exec(run.stderr)![1]!;
    const document = JSON.parse((await cli(["show", id, "--db", db, "--format", "json"])).stdout);
    expect(document.calls).toEqual({
      agent: agentCalls,
      judge: judgeCalls,
      interventions: 0,
      gate: judgeCalls,
      gate_checks: 1,
    });
    expect(document.tokens.agents).toEqual({
      input_tokens: martas.stats.tokens.prompt - agentsBefore.prompt,
      output_tokens: martas.stats.tokens.completion - agentsBefore.completion,
    });
    expect(document.tokens.gate).toEqual({
      input_tokens: judge.stats.tokens.prompt - judgeBefore.prompt,
      output_tokens: judge.stats.tokens.completion - judgeBefore.completion,
    });
    const line = `4 agent calls, 3 judge calls (3 by the action gate)`;
    expect(run.stderr).toContain(line);
    expect((await cli(["show", id.slice(0, 8), "--db", db])).stdout).toContain(line);
  });

  it("refuses a gated world without --judge, before calling the model", async () => {
    const before = martas.stats.calls;
    const { code, stderr } = await simulate("memory://");
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /agent "marta" turns on the action gate's adherence check, which is judged: give a judge \(--judge\)/,
    );
    expect(martas.stats.calls).toBe(before);
  });
});
