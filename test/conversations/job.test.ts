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
      new RegExp(`^${file}:47:5: assertions\\[3\\]: unknown assertion type; expected one of expression`),
    );
  });

  it("a task without acceptance criteria names its line", () => {
    const file = variant(
      "criteria.yml",
      '    acceptanceCriteria: "The assistant correctly answers Paris"\n',
      "",
    );
    const e = inputError(() => loadConversationJob(file));
    expect(e.message).toMatch(new RegExp(`^${file}:25:5: acceptanceCriteria: missing; expected a string`));
  });

  it("CEL that does not parse names its line, before anything runs", () => {
    const file = variant(
      "cel.yml",
      '"size(objectContext.resources) == 1"',
      '"objectContext.resources.size() =="',
    );
    const e = inputError(() => loadConversationJob(file));
    expect(e.message).toMatch(
      new RegExp(`^${file}:40:17: assertions\\[0\\]\\.expression: not a valid CEL expression`),
    );
  });

  it("an sql assertion without its expected value names its line", () => {
    const file = variant(
      "expected.yml",
      '  - sql: "SELECT count(*) FROM reminders"\n    expected: 1\n',
      '  - sql: "SELECT count(*) FROM reminders"\n',
    );
    expect(inputError(() => loadConversationJob(file)).message).toMatch(
      /:47:5: .*missing; expected the value the query should return/,
    );
  });

  it("protocol http needs its body and reply", () => {
    const file = variant("http.yml", "  chatbot: my-agent\n", "  chatbot: my-agent\n  protocol: http\n");
    expect(inputError(() => loadConversationJob(file)).message).toMatch(
      /target\.http: missing; protocol http needs/,
    );
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
