// The judged analysis on the run engine: hand-written fixture verdicts in, the seed's formulas out
// (computed here by hand), judge failures left null and counted, and the live judge through the AI SDK.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyzeSession } from "../../src/sessions/index.ts";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";

const example = (name: string) => fileURLToPath(new URL(`../../examples/sessions/${name}`, import.meta.url));
const SESSION = example("refund.session.json");
const FIXTURES = `fixtures:${example("refund.judge-fixtures.json")}`;

describe("a judged session analysis", () => {
  it("gives the seed's per-agent and overall scores from the fixture verdicts, renormalised by hand", async () => {
    const result = await analyzeSession(SESSION, { judge: FIXTURES });
    const a = result.analyses[0]!;
    // planner, one interaction where everything applies: tool use 9, reasoning 6, handoff 9, response 8.
    const planner = 0.35 * 1 + 0.25 * (6 / 9) + 0.2 * 1 + 0.2 * (8 / 9);
    expect(a.per_agent_scores.planner!.overall).toBeCloseTo(planner, 10);
    // executor: tool use 7 in both interactions, response 9 then 6; no reasoning or handoff (left out).
    const executor = (0.35 * (7 / 9) + 0.2 * ((9 / 9 + 6 / 9) / 2)) / (0.35 + 0.2);
    expect(a.per_agent_scores.executor!.overall).toBeCloseTo(executor, 10);
    expect(a.per_agent_scores.executor!.left_out).toEqual([
      { metric: "reasoning", reason: "not_applicable" },
      { metric: "handoff", reason: "not_applicable" },
    ]);
    // Session: both turns good; tool use over the three interactions with calls; reasoning the planner's.
    const toolUse = (1 + 7 / 9 + 7 / 9) / 3;
    const overall = 0.3 * 1 + 0.25 * toolUse + 0.2 * (8 / 9) + 0.15 * (6 / 9) + 0.1 * (1 - 1 / 9);
    expect(a.overall_score).toBeCloseTo(overall, 10);
    expect([a.coordination_score, a.intent_drift_score, a.task_completion]).toEqual([8 / 9, 1 / 9, true]);
    expect(a.turn_results.map((t) => [t.is_bad, t.detection_type])).toEqual([
      [false, "none"],
      [false, "none"],
    ]);
    // A fixture judge sends no request to a provider (the live test below counts the six).
    expect(result.judge).toMatchObject({ spec: FIXTURES, requests: 0, calls: 0, errored: 0 });
  });

  it("a tool call with a HIGH finding scores 0 whatever the judge says; MEDIUM at most 0.5", async () => {
    const session = {
      id: "s",
      agents: [
        {
          id: "a",
          tools_available: [
            { name: "t", parameters_schema: { type: "object", properties: { n: { type: "integer" } } } },
          ],
        },
      ],
      turns: [
        {
          user_message: "go",
          agent_interactions: [
            {
              agent_id: "a",
              agent_steps: [
                { tool_call: { tool_name: "other" } },
                { tool_call: { tool_name: "t", parameters: { n: "x" } } },
              ],
              output: "ok",
            },
          ],
        },
      ],
    };
    const judge = (await import("../../src/testing/index.ts")).scriptedJudge(() => ({ score: 9 }));
    const a = (await analyzeSession(session, { judge })).analyses[0]!;
    // The unauthorized call counts 0, the badly typed one 0.5: (0 + 0.5) / 2.
    expect(a.per_agent_scores.a!.tool_use).toBeCloseTo(0.25, 10);
  });

  it("a verdict the judge could not give leaves its metric null and is counted, never a pass", async () => {
    const { scriptedJudge } = await import("../../src/testing/index.ts");
    const judge = scriptedJudge((item) => {
      if (item.key.proposition_id === "reasoning") throw new Error("the judge did not answer");
      return { score: 9 };
    });
    const result = await analyzeSession(SESSION, { judge });
    const planner = result.analyses[0]!.per_agent_scores.planner!;
    expect(planner.reasoning).toBeNull();
    expect(planner.left_out).toEqual([{ metric: "reasoning", reason: "errored" }]);
    expect(result.judge!.errored).toBe(1);
    expect(result.analyses[0]!.judge.errored).toBe(1);
  });
});

describe("a live judge through the AI SDK", () => {
  let server: FakeOpenAIServer;
  beforeAll(async () => {
    server = await startFakeOpenAIServer({ latencyMs: 1 });
  });
  afterAll(async () => {
    await server.close();
  });

  it("judges every metric of an interaction in one model call", async () => {
    const before = server.stats.calls;
    const result = await analyzeSession(SESSION, {
      judge: "openai-compatible:fake-model",
      judgeSettings: { baseUrl: server.url },
    });
    // One call per interaction (3), per turn (2) and for the session: fewer than one per metric.
    expect(server.stats.calls - before).toBe(6);
    expect(result.judge).toMatchObject({ requests: 6, calls: 6, errored: 0 });
    expect(result.analyses[0]!.overall_score).not.toBeNull();
  });
});

describe("several sessions in one analysis", () => {
  it("two sessions with the same id are judged and stored apart", async () => {
    const { readFileSync } = await import("node:fs");
    const one = JSON.parse(readFileSync(SESSION, "utf8"));
    const { scriptedJudge } = await import("../../src/testing/index.ts");
    const scripted = scriptedJudge(() => ({ score: 7 }));
    let asked = 0;
    const judge: typeof scripted = {
      descriptor: scripted.descriptor,
      judge: (request, options) => {
        asked++;
        return scripted.judge(request, options);
      },
    };
    const result = await analyzeSession([one, one], { judge });
    expect(result.analyses).toHaveLength(2);
    expect(asked).toBe(12);
    expect(result.judge).toMatchObject({ errored: 0 });
    expect(result.analyses[1]!.overall_score).toBeCloseTo(result.analyses[0]!.overall_score!, 12);
    // Two runs of the refund task, both successful.
    expect(result.pass_k).toEqual({ tasks: 1, runs_per_task: 2, pass_k: { "1": 1, "2": 1 } });
  });
});

describe("an interrupted analysis", () => {
  it("stops with a resume hint, and resuming judges only what is missing, to the same scores", async () => {
    const { readFileSync } = await import("node:fs");
    const { scriptedJudge } = await import("../../src/testing/index.ts");
    const { openStore } = await import("../../src/store/index.ts");
    const { InterruptedError } = await import("../../src/core/index.ts");
    const { resumeSessionAnalysis } = await import("../../src/sessions/index.ts");
    const one = JSON.parse(readFileSync(SESSION, "utf8"));
    const sessions = [one, { ...one, id: "again" }, { ...one, id: "third" }];
    const score = (item: { key: { proposition_id: string } }) => ({
      score: item.key.proposition_id.length % 10,
    });
    const reference = await analyzeSession(sessions, { judge: scriptedJudge(score) });

    const store = await openStore("memory://");
    try {
      const stop = new AbortController();
      let asked = 0;
      const inner = scriptedJudge(score);
      const judge = {
        descriptor: inner.descriptor,
        judge: async (request: Parameters<typeof inner.judge>[0]) => {
          if (++asked === 5) stop.abort(new Error("Ctrl-C"));
          return inner.judge(request);
        },
      };
      const error = await analyzeSession(sessions, {
        judge,
        store,
        concurrency: 1,
        signal: stop.signal,
      }).catch((e) => e);
      expect(InterruptedError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(/`dramaturg session analyze --resume [0-9a-f]{8}` completes it/);
      let resumedAsks = 0;
      const resumed = await resumeSessionAnalysis({
        store,
        judge: {
          descriptor: inner.descriptor,
          judge: (request) => {
            resumedAsks++;
            return inner.judge(request);
          },
        },
      });
      // 18 requests in all (6 per session): 5 judged before the stop, the rest on resume.
      expect(resumedAsks).toBe(18 - 5);
      expect(resumed.analyses.map((a) => a.overall_score)).toEqual(
        reference.analyses.map((a) => a.overall_score),
      );
      expect(resumed.analyses[2]!.session_id).toBe("third");
    } finally {
      await store.close();
    }
  });
});
