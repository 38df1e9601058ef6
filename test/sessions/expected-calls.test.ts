// Expected calls in a file of their own, matched per agent or over the whole session: the file's rules, the
// session found by id or task, the sum of the agents' matches, and the file's mistakes at their lines.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadExpectedCalls, matchSessionCalls } from "../../src/sessions/expected-calls.ts";
import { parseSession } from "../../src/sessions/session-format.ts";
import { cli } from "../cli/run-cli.ts";
import { useTempDir } from "../temp-dir.ts";

const call = (tool_name: string, parameters: Record<string, unknown> = {}) => ({
  tool_call: { tool_name, parameters },
});
const RAW = {
  format: "dramaturg.session/v1",
  id: "s-1",
  task_id: "refund",
  agents: [{ id: "triage" }, { id: "billing" }],
  turns: [
    {
      turn_index: 1,
      user_message: "I was charged twice.",
      agent_interactions: [
        {
          agent_id: "triage",
          agent_steps: [call("lookup_customer", { email: "a@b.c" }), { handoff: { to: "billing" } }],
        },
        {
          agent_id: "billing",
          agent_steps: [call("list_charges", { customer: 7 }), call("refund", { charge: 12 })],
        },
      ],
    },
  ],
};
const SESSION = parseSession(RAW);

const dir = useTempDir("dramaturg-expected-calls-");
const write = (name: string, text: string) => {
  const file = join(dir(), name);
  writeFileSync(file, text);
  return file;
};

describe("expected calls", () => {
  it("match per agent, and the session's figures are the agents' summed", () => {
    const file = loadExpectedCalls(
      write(
        "per-agent.yaml",
        `mode: in-order
arguments: ignore
sessions:
  - task_id: refund
    agents:
      triage: [{ tool_name: lookup_customer }]
      billing: [{ tool_name: refund }, { tool_name: send_receipt }]
`,
      ),
    );
    const match = matchSessionCalls(file, SESSION)!;
    expect(match.agents.triage).toMatchObject({ passed: true, matched: [[0, 0]] });
    // billing made list_charges then refund; send_receipt never came.
    expect(match.agents.billing).toMatchObject({ passed: false, missing: [1], unexpected: [0] });
    expect(match.passed).toBe(false);
    // Matched 2 of the 3 calls made and of the 3 expected.
    expect(match.precision).toBeCloseTo(2 / 3, 12);
    expect(match.recall).toBeCloseTo(2 / 3, 12);
  });

  it("match the whole session's calls by its id, with a tool's CEL rule over the arguments", () => {
    const file = loadExpectedCalls(
      write(
        "whole.json",
        JSON.stringify({
          mode: "superset",
          tools: { refund: { arguments: { cel: "actual.charge == expected.charge" } } },
          sessions: [{ session_id: "s-1", calls: [{ tool_name: "refund", parameters: { charge: 12 } }] }],
        }),
      ),
    );
    expect(matchSessionCalls(file, SESSION)).toMatchObject({
      passed: true,
      recall: 1,
      agents: { "*": { made: 3 } },
    });
    const other = parseSession({ ...RAW, id: "s-2", task_id: "other" });
    expect(matchSessionCalls(file, other)).toBeUndefined();
  });

  it("refuses a file's mistakes at their line", () => {
    const both = write(
      "both.yaml",
      `sessions:
  - task_id: refund
    calls: []
    agents: { billing: [] }
`,
    );
    expect(() => loadExpectedCalls(both)).toThrow(/both\.yaml:2:\d+: .*either calls .* or agents/);
    const mode = write("mode.yaml", "mode: sometimes\nsessions:\n  - task_id: refund\n    calls: []\n");
    expect(() => loadExpectedCalls(mode)).toThrow(/mode\.yaml:1:7: mode: .*strict/);
    const twice = write(
      "twice.yaml",
      "sessions:\n  - task_id: refund\n    calls: []\n  - task_id: refund\n    calls: []\n",
    );
    expect(() => loadExpectedCalls(twice)).toThrow(
      /twice\.yaml:4:\d+: sessions\[1\]: task refund is expected twice/,
    );
  });
});

describe("session analyze --expect", () => {
  const TAU2 = "test/fixtures/tau2-bench/hand-written-airline.json";
  const EXPECT = `mode: superset
arguments: ignore
sessions:
  - task_id: "1"
    calls:
      - tool_name: get_reservation_details
      - tool_name: cancel_reservation
`;

  it("gives each session it names a trajectory match, printed and in the JSON, kept with a stored run", async () => {
    const expect_ = write("expect.yaml", EXPECT);
    const run = await cli([
      "session",
      "analyze",
      TAU2,
      "--expect",
      expect_,
      "--db",
      "memory://",
      "--format",
      "json",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const analyses = JSON.parse(run.stdout).analyses as {
      session_id: string;
      trajectory_match?: { passed: boolean; recall: number };
    }[];
    // Task 1's four runs: trials 0 and 2 cancelled (passed), 1 and 3 transferred instead (failed); task 0 not named.
    expect(
      Object.fromEntries(analyses.map((a) => [a.session_id, a.trajectory_match?.passed ?? null])),
    ).toEqual({
      "task-0-trial-0": null,
      "task-0-trial-1": null,
      "task-0-trial-2": null,
      "task-0-trial-3": null,
      "task-1-trial-0": true,
      "task-1-trial-1": false,
      "task-1-trial-2": true,
      "task-1-trial-3": false,
    });
    const text = await cli(["session", "analyze", TAU2, "--expect", expect_, "--db", "memory://"]);
    expect(text.stdout).toContain(
      "expected calls (superset): FAILED · precision 0.50 · recall 0.50 · F1 0.50",
    );
    expect(text.stdout).toContain(
      "1 expected call(s) missing (cancel_reservation), 1 made and not expected (#2)",
    );
    const db = join(dir(), "store");
    const stored = await cli([
      "session",
      "analyze",
      TAU2,
      "--expect",
      expect_,
      "--db",
      db,
      "--judge",
      "none",
      "--format",
      "json",
    ]);
    expect(stored.code, stored.stderr).toBe(0);
    const id = JSON.parse(stored.stdout).evaluation_id as string;
    const shown = await cli(["show", id.slice(0, 8), "--db", db, "--format", "json"]);
    expect(JSON.parse(shown.stdout).analyses[5].trajectory_match).toEqual(
      JSON.parse(stored.stdout).analyses[5].trajectory_match,
    );
  });

  it("refuses a bad expectations file before anything is analysed", async () => {
    const bad = write("bad.yaml", "mode: sometimes\nsessions:\n  - task_id: '1'\n    calls: []\n");
    const run = await cli(["session", "analyze", TAU2, "--expect", bad, "--db", "memory://"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/bad\.yaml:1:7: mode: /);
    expect(run.stdout).toBe("");
  });
});

describe("expected calls on the session page", () => {
  it("the verdict and the missing calls above the timeline, each call made and not expected marked where it is", async () => {
    const { openStore } = await import("../../src/store/index.ts");
    const { createServerApp } = await import("../../src/server/index.ts");
    const { analyzeSession } = await import("../../src/sessions/index.ts");
    const store = await openStore("memory://");
    try {
      const expected = loadExpectedCalls(
        write(
          "page.yaml",
          "mode: in-order\narguments: ignore\nsessions:\n  - task_id: refund\n    agents:\n      billing: [{ tool_name: refund }, { tool_name: send_receipt }]\n",
        ),
      );
      await analyzeSession(RAW, { judge: "none", store, expect: expected });
      const [row] = await store.evaluations.list({ kind: "session", limit: 1 });
      const text = await (await createServerApp({ store }).request(`/sessions/${row!.id}`)).text();
      expect(text).toMatch(
        /Expected calls \(in-order\)<\/strong>: <span class="status failed">failed<\/span>/,
      );
      expect(text).toContain("missing: billing: send_receipt");
      // billing's first call (list_charges) is the one not expected; lookup_customer is triage's, not matched against.
      const marked = text.split('class="step-unexpected"');
      expect(marked).toHaveLength(2);
      expect(marked[0]!.slice(marked[0]!.lastIndexOf('<li class="step'))).toContain("list_charges");
    } finally {
      await store.close();
    }
  });
});
