// The conversation job file: the seed's example reads as written; each kind of mistake names its line.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadConversationJob } from "../../src/conversations/index.ts";
import { cli } from "../cli/run-cli.ts";
import { inputError } from "../input-error.ts";
import { useTempDir } from "../temp-dir.ts";

const SEED = fileURLToPath(new URL("../fixtures/conversations/seed-example.yml", import.meta.url));
const dir = useTempDir("dramaturg-job-");
/** The example's target.graph, the one graph its cypher assertion has. */
const GRAPH_LINE =
  "  graph: neo4j://127.0.0.1:7687  # where the cypher assertion reads the agent's knowledge graph\n";

/** The seed example with `from` replaced by `to`, written to a file of its own. */
function variant(name: string, from: string, to: string): string {
  const text = readFileSync(SEED, "utf8");
  if (!text.includes(from)) throw new Error(`the example has no ${from}`);
  const file = join(dir(), name);
  writeFileSync(file, text.replace(from, to));
  return file;
}

describe("a conversation job", () => {
  it("reads the seed's example, with defaults for what it leaves out", () => {
    const job = loadConversationJob(SEED);
    expect(job.evaluator).toEqual({
      name: "Socrates",
      voice: "You speak like a friendly, relaxed human",
      signoff: "So Long, and Thanks for All the Fish",
      temperature: 0.5,
    });
    expect(job.target).toMatchObject({ protocol: "openai-chat", retries: 3, timeoutMs: 30_000 });
    // The cypher assertion names no graph of its own: it reads the job's.
    expect(job.assertions[2]).toMatchObject({ kind: "cypher", graph: "neo4j://127.0.0.1:7687" });
    expect(job.maxTurns).toBe(10);
    expect(job.tasks.map((t) => t.type)).toEqual(["task", "question"]);
    expect(job.seeds).toHaveLength(2);
    // Two identical assertions are two assertions.
    expect(job.assertions.map((a) => [a.kind, a.weight])).toEqual([
      ["expression", 2],
      ["expression", 2],
      ["cypher", 3],
      ["sql", 1],
    ]);
  });

  it("an unknown assertion type names its line", () => {
    const file = variant(
      "unknown.yml",
      '  - sql: "SELECT count(*) FROM reminders"',
      '  - gremlin: "g.V().count()"',
    );
    const e = inputError(() => loadConversationJob(file));
    expect(e.message).toMatch(
      new RegExp(`^${file}:48:5: assertions\\[3\\]: unknown assertion type; expected one of expression`),
    );
  });

  it("a task without acceptance criteria names its line", () => {
    const file = variant(
      "criteria.yml",
      '    acceptanceCriteria: "The assistant correctly answers Paris"\n',
      "",
    );
    const e = inputError(() => loadConversationJob(file));
    expect(e.message).toMatch(new RegExp(`^${file}:26:5: acceptanceCriteria: missing; expected a string`));
  });

  it("CEL that does not parse names its line, before anything runs", () => {
    const file = variant(
      "cel.yml",
      '"size(objectContext.resources) == 1"',
      '"objectContext.resources.size() =="',
    );
    const e = inputError(() => loadConversationJob(file));
    expect(e.message).toMatch(
      new RegExp(`^${file}:41:17: assertions\\[0\\]\\.expression: not a valid CEL expression`),
    );
  });

  it("an sql assertion without its expected value names its line", () => {
    const file = variant(
      "expected.yml",
      '  - sql: "SELECT count(*) FROM reminders"\n    expected: 1\n',
      '  - sql: "SELECT count(*) FROM reminders"\n',
    );
    expect(inputError(() => loadConversationJob(file)).message).toMatch(
      /:48:5: .*missing; expected the value the query should return/,
    );
  });

  it("a cypher assertion without its expected value names its line", () => {
    const file = variant("cypher-expected.yml", "    expected: 1\n    weight: 3\n", "    weight: 3\n");
    expect(inputError(() => loadConversationJob(file)).message).toMatch(
      new RegExp(`^${file}:45:5: .*missing; expected the value the query should return`),
    );
  });

  it("a cypher assertion with no graph anywhere names its line", () => {
    const file = variant("no-graph.yml", GRAPH_LINE, "");
    expect(inputError(() => loadConversationJob(file)).message).toMatch(
      new RegExp(
        `^${file}:44:13: assertions\\[2\\]: no graph to query; give target.graph or the assertion's graph`,
      ),
    );
  });

  it("a cypher setup step with no graph anywhere names its line", () => {
    const file = variant("no-graph-setup.yml", GRAPH_LINE, "");
    const text = readFileSync(file, "utf8")
      .replace(/ {2}- cypher: .*\n.*\n.*\n/, "")
      .replace("assertions:\n", 'setup:\n  - cypher: "MATCH (n) DETACH DELETE n"\nassertions:\n');
    writeFileSync(file, text);
    expect(inputError(() => loadConversationJob(file)).message).toMatch(
      new RegExp(`^${file}:40:13: setup\\[0\\]: no graph to query; give target.graph or the step's graph`),
    );
  });

  it("a graph URL with credentials in it names its line and hides the password", () => {
    const file = variant(
      "graph-password.yml",
      "graph: neo4j://127.0.0.1:7687",
      "graph: neo4j://neo4j:Sup3r-s3cret@127.0.0.1:7687",
    );
    const e = inputError(() => loadConversationJob(file));
    expect(e.message).toMatch(
      new RegExp(`^${file}:13:10: target\\.graph: the graph URL .* has credentials in it`),
    );
    expect(e.message).not.toContain("Sup3r-s3cret");
  });

  it("an assertion's graph of an unknown kind names its line", () => {
    const file = variant(
      "graph-scheme.yml",
      "    expected: 1\n    weight: 3\n",
      "    expected: 1\n    graph: http://127.0.0.1:7474\n    weight: 3\n",
    );
    expect(inputError(() => loadConversationJob(file)).message).toMatch(
      new RegExp(`^${file}:47:12: assertions\\[2\\]\\.graph: unknown graph "http://127.0.0.1:7474"`),
    );
  });

  it("protocol http needs its body and reply", () => {
    const file = variant("http.yml", "  chatbot: my-agent\n", "  chatbot: my-agent\n  protocol: http\n");
    expect(inputError(() => loadConversationJob(file)).message).toMatch(
      /target\.http: missing; protocol http needs/,
    );
  });

  it("dramaturg schema conversation describes where the graph is", async () => {
    const r = await cli(["schema", "conversation"]);
    expect(JSON.parse(r.stdout).properties.target.properties.graph).toMatchObject({
      type: "string",
      description: expect.stringMatching(/^neo4j:\/\/ or bolt:\/\/ URL/),
    });
  });

  it("dramaturg schema conversation prints the job's JSON Schema, assertions by their four shapes", async () => {
    const r = await cli(["schema", "conversation"]);
    expect(r.code, r.stderr).toBe(0);
    const schema = JSON.parse(r.stdout);
    expect(schema.required).toEqual(expect.arrayContaining(["evaluator", "target", "tasks", "greetings"]));
    expect(schema.properties.assertions.items.anyOf.map((a: { required: string[] }) => a.required)).toEqual([
      ["expression"],
      ["sql", "expected"],
      ["http", "expression"],
      ["cypher", "expected"],
    ]);
  });
});
