// Cypher assertions and setup: one value read from a read-only graph and compared with the expected value,
// against the embedded Kùzu database (kuzu-wasm) in a temp folder. No Neo4j server can run here, so for
// neo4j-driver only the location parsing and the keeping of secrets out of errors are tested.
import { createServer, type Server } from "node:http";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Assertion,
  checkAssertions,
  cypherStatements,
  loadConversationJob,
  openGraph,
  parseGraphLocation,
  runConversation,
} from "../../src/conversations/index.ts";
import { InputError } from "../../src/core/index.ts";
import { scriptedJudge } from "../../src/testing/index.ts";
import { inputError } from "../input-error.ts";
import { useTempDir } from "../temp-dir.ts";
import { scriptedTextModel } from "./scripted-model.ts";

const dir = useTempDir("dramaturg-cypher-");
const conversation = { turns: [], tool_calls: [] };
const cypher = (query: string, expected: unknown): Extract<Assertion, { kind: "cypher" }> => ({
  kind: "cypher",
  cypher: query,
  expected,
  weight: 1,
});

describe("cypher assertions on an embedded graph", () => {
  let graph: string;
  beforeAll(async () => {
    graph = join(dir(), "agent", "graph.kz");
    const g = await openGraph(graph, { write: true });
    try {
      await g.run(`
        CREATE NODE TABLE Reminder(id INT64 PRIMARY KEY, at STRING);
        CREATE (:Reminder {id: 1, at: 'tomorrow 09:00'});
        CREATE (:Reminder {id: 2, at: 'friday 17:00'});`);
    } finally {
      await g.close();
    }
  });
  const check = async (query: string, expected: unknown) =>
    (await checkAssertions([cypher(query, expected)], { conversation, graph }))[0]!;

  it("a count that matches passes, compared as a number", async () => {
    const out = await check("MATCH (r:Reminder) RETURN count(r) AS count", 2);
    expect(out).toMatchObject({ passed: true, actual: 2, expected: 2 });
    expect(out.label).toBe("MATCH (r:Reminder) RETURN count(r) AS count");
    // The same count as text is still the number 2, and not 3.
    const text = "MATCH (r:Reminder) RETURN CAST(count(r) AS STRING)";
    expect(await check(text, 2)).toMatchObject({ passed: true, actual: "2" });
    expect(await check(text, 3)).toMatchObject({ passed: false, actual: "2" });
  });

  it("a text value that matches passes", async () => {
    expect(await check("MATCH (r:Reminder {id: 1}) RETURN r.at", "tomorrow 09:00")).toMatchObject({
      passed: true,
      actual: "tomorrow 09:00",
    });
  });

  it("a missing node fails, showing the actual and the expected value", async () => {
    const out = await check("MATCH (r:Reminder {at: 'monday 08:00'}) RETURN count(r)", 1);
    expect(out).toMatchObject({ passed: false, actual: 0, expected: 1 });
    expect(out.error).toBeUndefined();
  });

  it("several rows fail with the reason", async () => {
    expect(await check("MATCH (r:Reminder) RETURN r.at", "tomorrow 09:00")).toMatchObject({
      passed: false,
      error: "the query returned 2 rows; expected one value",
    });
  });

  it("no row fails with the reason", async () => {
    expect((await check("MATCH (r:Reminder {id: 9}) RETURN r.at", null)).error).toBe(
      "the query returned no rows; expected one value",
    );
  });

  it("several columns fail with the reason", async () => {
    expect((await check("MATCH (r:Reminder {id: 1}) RETURN r.id, r.at", 1)).error).toBe(
      "the query returned 2 columns; expected one value",
    );
  });

  it("a syntax error fails with the engine's message, and the run goes on", async () => {
    const [bad, good] = await checkAssertions(
      [cypher("MATCH (r:Reminder RETURN count(r)", 2), cypher("MATCH (r:Reminder) RETURN count(r)", 2)],
      { conversation, graph },
    );
    expect(bad).toMatchObject({ passed: false, error: expect.stringMatching(/^Parser exception/) });
    expect(good!.passed).toBe(true);
  });

  it("a query that writes is refused, and nothing is written", async () => {
    const [write, count] = await checkAssertions(
      [
        cypher("CREATE (:Reminder {id: 3, at: 'never'}) RETURN 1", 1),
        cypher("MATCH (r:Reminder) RETURN count(r)", 2),
      ],
      { conversation, graph },
    );
    expect(write).toMatchObject({ passed: false, error: expect.stringMatching(/read-only/) });
    expect(count).toMatchObject({ passed: true, actual: 2 });
  });

  it("a second statement after the query is refused rather than run", async () => {
    expect((await check("MATCH (r:Reminder) RETURN count(r); MATCH (r:Reminder) DELETE r", 2)).error).toBe(
      "the query has 2 statements; expected one that returns a value",
    );
  });

  it("an assertion's own graph wins over the job's, and a graph that does not exist fails", async () => {
    const [own] = await checkAssertions([{ ...cypher("RETURN 1", 1), graph }], {
      conversation,
      graph: join(dir(), "elsewhere.kz"),
    });
    expect(own!.passed).toBe(true);
    const [missing] = await checkAssertions([cypher("RETURN 1", 1)], {
      conversation,
      graph: join(dir(), "nothing-here.kz"),
    });
    expect(missing).toMatchObject({ passed: false, error: expect.stringMatching(/READ ONLY/) });
  });

  it("no graph anywhere fails the assertion with what to give", async () => {
    expect((await checkAssertions([cypher("RETURN 1", 1)], { conversation }))[0]!.error).toBe(
      "no graph to query: give target.graph or the assertion's graph",
    );
  });
});

describe("cypher setup", () => {
  let server: Server;
  let base: string;
  let graph: string;
  /** Chat requests the agent has answered. */
  let chats = 0;
  const seed = () => ({
    ...loadConversationJob(
      fileURLToPath(new URL("../fixtures/conversations/seed-example.yml", import.meta.url)),
    ),
    seeds: [],
  });
  const lines = ["Remind me tomorrow at 9, please.", "So Long, and Thanks for All the Fish"];

  beforeAll(async () => {
    graph = join(dir(), "setup", "graph.kz");
    // An agent that really writes: asked for a reminder, it adds a Reminder node to the graph.
    server = createServer((req, res) => {
      let text = "";
      req.on("data", (d) => (text += d));
      req.on("end", async () => {
        chats++;
        const last = JSON.parse(text).messages.at(-1).content as string;
        let content = "How can I help?";
        if (/remind/i.test(last)) {
          const g = await openGraph(graph, { write: true });
          await g.run("CREATE (:Reminder {at: 'tomorrow 09:00'})").finally(() => g.close());
          content = "Done: a reminder for tomorrow at 9:00.";
        } else if (/capital/i.test(last)) content = "Paris.";
        res.writeHead(200).end(JSON.stringify({ choices: [{ message: { role: "assistant", content } }] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("runs before each pass, so each pass's assertions see that pass's writes only", async () => {
    const job = seed();
    const result = await runConversation(
      {
        ...job,
        target: { ...job.target, url: `${base}/v1`, stateUrl: undefined, graph },
        setup: [
          {
            cypher:
              "CREATE NODE TABLE IF NOT EXISTS Reminder(id SERIAL PRIMARY KEY, at STRING); MATCH (r:Reminder) DELETE r",
          },
        ],
        assertions: [{ ...cypher("MATCH (r:Reminder) RETURN count(r)", 1), graph }],
      },
      { userModel: scriptedTextModel(...lines, ...lines), judge: scriptedJudge(() => ({ score: 9 })) },
    );
    // Without the setup before the second pass, it would count the first pass's reminder too (2).
    expect(result.passes.map((p) => [p.pass, p.assertions[0]!.actual, p.assertions[0]!.passed])).toEqual([
      ["without_facts", 1, true],
      ["with_facts", 1, true],
    ]);
  });

  it("a setup statement that fails stops the run with the engine's message, before any pass", async () => {
    const broken = join(dir(), "broken", "graph.kz");
    const before = chats;
    const job = seed();
    const run = runConversation(
      {
        ...job,
        target: { ...job.target, url: `${base}/v1`, stateUrl: undefined, graph: broken },
        setup: [
          {
            cypher:
              "CREATE NODE TABLE Reminder(id SERIAL PRIMARY KEY, at STRING); CREATE (:Missing {id: 1}); CREATE (:Reminder {at: 'after the failure'})",
          },
        ],
        assertions: [{ ...cypher("MATCH (r:Reminder) RETURN count(r)", 0), graph: broken }],
      },
      { userModel: scriptedTextModel(...lines, ...lines), judge: scriptedJudge(() => ({ score: 9 })) },
    );
    await expect(run).rejects.toThrow(/Missing does not exist/);
    // No pass began: the agent was never spoken to.
    expect(chats).toBe(before);
    // The statements before the failing one were committed; the one after it never ran.
    const g = await openGraph(broken);
    try {
      expect(await g.readValue("MATCH (r:Reminder) RETURN count(r)")).toBe(0);
    } finally {
      await g.close();
    }
  });
});

describe("cypher statements", () => {
  it("split at semicolons outside quotes, backticks and comments", () => {
    expect(
      cypherStatements(`CREATE (:A {t: 'a;b'}); // one; two
        MATCH (\`x;y\`) RETURN "c;d" /* ; */ ;;`),
    ).toEqual([`CREATE (:A {t: 'a;b'})`, `// one; two\n        MATCH (\`x;y\`) RETURN "c;d" /* ; */`]);
  });

  it("leave out what holds only blanks and comments", () => {
    expect(cypherStatements("MATCH (n) RETURN count(n); // done\n /* nothing */ ;\n")).toEqual([
      "MATCH (n) RETURN count(n)",
    ]);
  });
});

describe("graph locations", () => {
  it("a neo4j or bolt URL is a server, anything else an embedded database file", () => {
    expect(parseGraphLocation("neo4j://127.0.0.1:7687")).toEqual({
      kind: "neo4j",
      url: "neo4j://127.0.0.1:7687",
    });
    expect(parseGraphLocation("neo4j+s://db.example.com").kind).toBe("neo4j");
    expect(parseGraphLocation("BOLT+ssc://db.example.com:7687").kind).toBe("neo4j");
    expect(parseGraphLocation("graphs/agent.kz")).toEqual({ kind: "embedded", path: "graphs/agent.kz" });
  });

  it("a URL with credentials in it is refused without showing the password", () => {
    const e = inputError(() => parseGraphLocation("neo4j://neo4j:Sup3r-s3cret@db.example.com:7687"));
    expect(e.message).toMatch(/has credentials in it; give them in NEO4J_USERNAME and NEO4J_PASSWORD/);
    expect(e.message).not.toContain("Sup3r-s3cret");
  });

  it("another scheme or nothing at all is bad input", () => {
    expect(inputError(() => parseGraphLocation("http://db.example.com")).message).toMatch(/^unknown graph/);
    expect(InputError.isInstance(inputError(() => parseGraphLocation("  ")))).toBe(true);
  });
});

describe("a Neo4j graph that cannot be reached", () => {
  it("fails the assertion with the driver's reason and never the password", async () => {
    // A port that was just free: nothing listens there, so the driver fails to connect.
    const probe = createTcpServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const password = "Hunter2-very-secret";
    const g = await openGraph(`bolt://127.0.0.1:${port}`, {
      timeoutMs: 2000,
      env: { NEO4J_USERNAME: "neo4j", NEO4J_PASSWORD: password },
    });
    try {
      const error = await g.readValue("RETURN 1").then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.message).toMatch(/connect|ECONNREFUSED/i);
      expect(error?.message).not.toContain(password);
    } finally {
      await g.close();
    }
  });
});
