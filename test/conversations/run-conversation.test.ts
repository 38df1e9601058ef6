// A job end to end against a small agent over HTTP (it keeps reminders in its state), a scripted user,
// and a scripted scorer: both passes, the assertions with their actual values, the composite per pass.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConversationJob, loadConversationJob, runConversation } from "../../src/conversations/index.ts";
import { openDatabase, openStore } from "../../src/store/index.ts";
import { scriptedJudge } from "../../src/testing/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { scriptedTextModel } from "./scripted-model.ts";

const dir = useTempDir("dramaturg-conversation-");
let server: Server;
let base: string;
/** Whether the agent really writes the reminder it says it made. */
let writes = true;
let reminders: string[] = [];
/** Chat requests the agent has answered. */
let chats = 0;
/** When set, the agent also writes each reminder it makes as a row of `audit` in this PGlite folder. */
let agentDatabase: string | undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (d) => (text += d));
    req.on("end", async () => {
      if (req.url === "/state") return res.writeHead(200).end(JSON.stringify({ reminders }));
      if (req.url === "/reset") {
        reminders = [];
        return res.writeHead(200).end("{}");
      }
      if (req.url === "/broken") return res.writeHead(503).end("{}");
      chats++;
      const { messages } = JSON.parse(text);
      const last = messages.at(-1).content as string;
      let content = "How can I help?";
      if (/remind/i.test(last)) {
        if (writes) reminders.push("tomorrow 09:00");
        if (writes && agentDatabase) {
          const db = await openDatabase(agentDatabase);
          await db.exec("INSERT INTO audit VALUES ('tomorrow 09:00')").finally(() => db.close());
        }
        content = "Done: a reminder for tomorrow at 9:00.";
      } else if (/capital/i.test(last)) content = "Paris.";
      res.writeHead(200).end(JSON.stringify({ choices: [{ message: { role: "assistant", content } }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function job(): ConversationJob {
  const loaded = loadConversationJob(
    fileURLToPath(new URL("../fixtures/conversations/seed-example.yml", import.meta.url)),
  );
  return {
    ...loaded,
    seeds: [],
    target: { ...loaded.target, url: `${base}/v1`, stateUrl: `${base}/state` },
    setup: [{ http: `${base}/reset`, method: "POST" }],
    assertions: [
      { kind: "expression", expression: "size(objectContext.reminders) == 1", weight: 4 },
      {
        kind: "expression",
        expression: 'conversation.turns.exists(t, t.content.contains("Paris"))',
        weight: 1,
      },
    ],
  };
}

/** A user who asks for both tasks, then signs off: in each of the two passes. */
function user() {
  const lines = [
    "Remind me tomorrow at 9, please.",
    "What is the capital of France?",
    "So Long, and Thanks for All the Fish",
  ];
  return scriptedTextModel(...lines, ...lines);
}

const judge = scriptedJudge((item) => ({ score: item.key.proposition_id === "tone" ? 6 : 9 }));

describe("runConversation", () => {
  it("runs both passes from fresh state, checks the assertions and scores the composite per pass", async () => {
    writes = true;
    const result = await runConversation(job(), { userModel: user(), judge });
    expect(result.passes.map((p) => p.pass)).toEqual(["without_facts", "with_facts"]);
    for (const p of result.passes) {
      expect(p.transcript.ended).toBe("signoff");
      // Setup reset the agent before each pass: the second pass sees its own reminder only.
      expect(p.assertions.map((a) => [a.passed, a.actual])).toEqual([
        [true, true],
        [true, true],
      ]);
      expect(p.tone).toBeCloseTo(6 / 9, 12);
      expect(p.tasks.map((t) => t.score)).toEqual([1, 1]);
      const timing = Math.min(
        1,
        3000 / (p.transcript.latencies.reduce((a, b) => a + b, 0) / p.transcript.latencies.length),
      );
      expect(p.composite.score).toBeCloseTo((timing + 2 * 1 + 4 * 1) / 7, 12);
    }
    expect(result.difference).toBeCloseTo(0, 1);
    // A scripted judge sends no request to a provider.
    expect(result.judge).toMatchObject({ requests: 0, calls: 0, errored: 0 });
  });

  it("an agent that answers right but writes nothing scores lower, and the failed assertion says what it saw", async () => {
    writes = true;
    const doing = await runConversation(job(), { userModel: user(), judge, passes: "without" });
    writes = false;
    const saying = await runConversation(job(), { userModel: user(), judge, passes: "without" });
    const [failed] = saying.passes[0]!.assertions;
    expect(failed).toMatchObject({
      label: "size(objectContext.reminders) == 1",
      passed: false,
      actual: 0,
      expected: 1,
    });
    expect(saying.passes[0]!.composite.score!).toBeLessThan(doing.passes[0]!.composite.score!);
  });

  it("runs sql setup before each pass and checks sql assertions against the same database", async () => {
    const folder = join(dir(), "agent-db");
    await (await openStore(folder)).close();
    // The agent keeps its reminders in the database now: each reminder it makes is a row.
    agentDatabase = folder;
    writes = true;
    const template = job();
    try {
      const result = await runConversation(
        {
          ...template,
          target: { ...template.target, stateUrl: undefined, database: folder },
          setup: [{ sql: "DROP TABLE IF EXISTS audit; CREATE TABLE audit (at text)" }],
          assertions: [{ kind: "sql", sql: "SELECT count(*) FROM audit", expected: 1, weight: 1 }],
        },
        { userModel: user(), judge },
      );
      // Each pass wrote one row; setup emptied the table before the second, so it counts its own only (not 2).
      expect(result.passes.map((p) => [p.pass, p.assertions[0]!.actual, p.assertions[0]!.passed])).toEqual([
        ["without_facts", 1, true],
        ["with_facts", 1, true],
      ]);
    } finally {
      agentDatabase = undefined;
    }
  });

  it("a setup step that fails stops the run before any pass: an HTTP error status, an sql error", async () => {
    const before = chats;
    const template = job();
    await expect(
      runConversation(
        { ...template, setup: [{ http: `${base}/broken`, method: "POST" }] },
        { userModel: user(), judge },
      ),
    ).rejects.toThrow(/^setup POST http:\/\/127\.0\.0\.1:\d+\/broken answered HTTP 503$/);
    const folder = join(dir(), "broken-db");
    await (await openStore(folder)).close();
    await expect(
      runConversation(
        {
          ...template,
          target: { ...template.target, database: folder },
          setup: [{ sql: "CREATE TABLE audit (at text); INSERT INTO nowhere VALUES (1)" }],
        },
        { userModel: user(), judge },
      ),
    ).rejects.toThrow(/relation "nowhere" does not exist/);
    expect(chats).toBe(before);
  });
});
