// `dramaturg eval` (and `import`) on files that are not transcripts: an Inspect log, a Langfuse trace export and
// a LangSmith runs export (test/fixtures/inspect, langfuse, langsmith; their READMEs say where each comes from),
// read as sessions and turned into a transcript. Judged offline by HAND-WRITTEN fixtures
// (test/fixtures/imported-traces/judge-fixtures.json): one adherence verdict per proposition, for every agent.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../temp-dir.ts";
import { cli, ROOT } from "./run-cli.ts";

const INSPECT = `${ROOT}test/fixtures/inspect/popularity.json`;
const LANGFUSE = `${ROOT}test/fixtures/langfuse/hand-written-support.json`;
const LANGSMITH = `${ROOT}test/fixtures/langsmith/hand-written-weather-runs.json`;
const LANGSMITH_NO_PROMPT = `${ROOT}test/fixtures/langsmith/wrap-openai-default.json`;
const JUDGE = [
  "--dimensions",
  "adherence",
  "--judge",
  `fixtures:${ROOT}test/fixtures/imported-traces/judge-fixtures.json`,
];

type Run = { agent_id: string; sample_size: number; errored: number };

async function evalJson(args: string[]) {
  const r = await cli(["eval", ...args, ...JUDGE, "--db", "memory://", "--format", "json"]);
  expect(r.stderr).not.toMatch(/^dramaturg:/m);
  expect(r.code).toBe(0);
  const result = JSON.parse(r.stdout) as { runs: Run[] };
  return { ...r, result, runs: result.runs.map((x) => [x.agent_id, x.sample_size, x.errored]) };
}

describe("dramaturg eval on imported traces", () => {
  it("an Inspect log: its model is the agent, each sample a channel of the user's question and its reply", async () => {
    // popularity.json has 3 samples, each a system message (the persona), one user message and one assistant
    // reply ("Yes", "No", "No"): 3 × 2 = 6 messages, 3 of them the agent's (openai/gpt-4o-mini).
    const r = await evalJson([INSPECT]);
    expect(r.stderr).toContain(`read ${INSPECT} as inspect: 3 sessions`);
    expect(r.stderr).toContain("1 agent with a persona (openai/gpt-4o-mini), 6 messages");
    expect(r.runs).toEqual([["openai/gpt-4o-mini", 3, 0]]);
  });

  it("a Langfuse export: the session's agent with its system prompt; the trace without one is left out, said", async () => {
    // support-session-42 is 2 traces, each the user's message and support-agent's last words: 4 messages, 2 the
    // agent's. The third trace (faq) records no system message, so its agent has no persona and it is left out.
    const r = await evalJson([LANGFUSE]);
    expect(r.stderr).toContain(`read ${LANGFUSE} as langfuse: 2 sessions`);
    expect(r.stderr).toContain("note: faq: no system prompt or instructions recorded");
    expect(r.stderr).toContain("1 agent with a persona (support-agent), 4 messages");
    expect(r.runs).toEqual([["support-agent", 2, 0]]);
  });

  it("a LangSmith runs export, read as the format --from names", async () => {
    // thread-9 is 2 traces, each the user's input and weather-agent's reply: 4 messages, 2 the agent's.
    const r = await evalJson([LANGSMITH, "--from", "langsmith"]);
    expect(r.stderr).toContain(`read ${LANGSMITH} as langsmith: 1 session`);
    expect(r.stderr).toContain("1 agent with a persona (weather-agent), 4 messages");
    expect(r.runs).toEqual([["weather-agent", 2, 0]]);
  });

  it("gives the same result document twice over (its evaluation and run ids aside)", async () => {
    const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
    const first = await evalJson([LANGFUSE, INSPECT]);
    const second = await evalJson([LANGFUSE, INSPECT]);
    expect(second.stdout.replace(uuid, "ID")).toBe(first.stdout.replace(uuid, "ID"));
    expect(first.runs).toEqual([
      ["support-agent", 2, 0],
      ["openai/gpt-4o-mini", 3, 0],
    ]);
  });

  it("a file no importer knows exits 2 naming it and the formats it could be", async () => {
    const r = await cli(["eval", `${ROOT}package.json`, ...JUDGE, "--db", "memory://"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${ROOT}package.json: not a format Dramaturg reads as sessions; expected session, openai, openai-agents, otlp, tau-bench, tau2-bench, langfuse, langsmith, inspect (choose one with --from)`,
    );
    expect(r.stdout).toBe("");
  });

  it("a file whose agents have no system prompt exits 2: there is no persona to judge against", async () => {
    const r = await cli(["eval", LANGSMITH_NO_PROMPT, ...JUDGE, "--db", "memory://"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${LANGSMITH_NO_PROMPT}: no agent has a persona to be judged against: assistant has no system prompt or instructions recorded`,
    );
  });

  it("an unknown --from is refused with the formats", async () => {
    const r = await cli(["eval", LANGFUSE, "--from", "phoenix", ...JUDGE, "--db", "memory://"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("langfuse, langsmith, inspect");
  });

  it("dramaturg import stores them once (the same ids when imported again), and eval --from-store judges them", async () => {
    const db = join(tempDir("dramaturg-eval-imported-"), "store");
    const once = await cli(["import", LANGFUSE, "--db", db]);
    expect(once.code).toBe(0);
    expect(once.stdout).toContain("imported 4 messages (0 already stored) and 1 agents");
    const again = await cli(["import", LANGFUSE, "--db", db]);
    expect(again.stdout).toContain("imported 0 messages (4 already stored) and 1 agents");
    const stored = await cli(["eval", "--from-store", ...JUDGE, "--db", db, "--format", "json"]);
    expect(stored.code).toBe(0);
    const { runs } = JSON.parse(stored.stdout) as { runs: Run[] };
    expect(runs.map((x) => [x.agent_id, x.sample_size])).toEqual([["support-agent", 2]]);
  });

  it("reads a transcript as it always has, beside an imported file", async () => {
    const demo = `${ROOT}examples/ensemble/transcript.json`;
    const ines = (JSON.parse(readFileSync(demo, "utf8")).messages as { sender: string }[]).filter(
      (m) => m.sender === "ines",
    ).length;
    const r = await evalJson([demo, LANGSMITH, "--agents", "ines,weather-agent"]);
    expect(r.stderr).toContain(`read ${LANGSMITH} as langsmith`);
    expect(r.stderr).not.toContain(`read ${demo}`);
    expect(r.runs).toEqual([
      ["ines", ines, 0],
      ["weather-agent", 2, 0],
    ]);
  });
});
