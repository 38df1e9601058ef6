// The judged session analysis against the fake OpenAI server at a fixed latency, through the real
// provider and LlmJudge: wall time against the ideal (calls × latency / concurrency) and calls per session.
import { planSize } from "../src/engine/index.ts";
import { analyzeSession, parseSession, sessionPlan, validateToolCalls } from "../src/sessions/index.ts";
import { startFakeServerInWorker } from "./fake-server-worker.ts";

/** A planner/executor session of `turns` turns: thoughts, a tool call and a handoff, then the executor's call. */
function sessionValue(i: number, turns: number) {
  return {
    id: `bench-${i}`,
    agents: [
      {
        id: "planner",
        tools_available: [
          {
            name: "lookup",
            parameters_schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
          },
        ],
      },
      {
        id: "executor",
        tools_available: [
          {
            name: "act",
            parameters_schema: {
              type: "object",
              properties: { id: { type: "string" }, n: { type: "integer" } },
            },
          },
        ],
      },
    ],
    turns: Array.from({ length: turns }, (_, t) => ({
      user_message: `Please handle request ${i}-${t} about order ${1000 + t}.`,
      agent_interactions: [
        {
          agent_id: "planner",
          agent_steps: [
            { thought: `Look order ${1000 + t} up, then hand it over.` },
            {
              tool_call: { tool_name: "lookup", parameters: { id: String(1000 + t) }, result: { ok: true } },
            },
            { handoff: { to: "executor", context: `order ${1000 + t}` } },
          ],
          output: "Handing over.",
        },
        {
          agent_id: "executor",
          agent_steps: [
            { tool_call: { tool_name: "act", parameters: { id: String(1000 + t), n: t }, result: "done" } },
          ],
          output: `Done with ${1000 + t}.`,
        },
      ],
    })),
  };
}

export async function benchSessionJudged({
  sessions = 200,
  turns = 2,
  latencyMs = 200,
  concurrency = 16,
} = {}) {
  const values = Array.from({ length: sessions }, (_, i) => sessionValue(i, turns));
  const parsed = values.map((v) => parseSession(v));
  const metrics = planSize(
    sessionPlan(
      parsed,
      parsed.map((p) => validateToolCalls(p)),
    ),
  ).items;
  const server = await startFakeServerInWorker(latencyMs);
  try {
    const start = performance.now();
    const result = await analyzeSession(values, {
      judge: "openai-compatible:fake-model",
      judgeSettings: { baseUrl: server.url },
      concurrency,
      cache: false,
    });
    const wall = (performance.now() - start) / 1000;
    const stats = await server.takeStats();
    const calls = result.judge!.calls;
    return {
      sessions,
      calls,
      server_calls: stats.calls,
      calls_per_session: calls / sessions,
      judged_metrics_per_session: metrics / sessions,
      errored: result.judge!.errored,
      wall_s: wall,
      ideal_s: (calls * latencyMs) / 1000 / concurrency,
      ratio: wall / ((calls * latencyMs) / 1000 / concurrency),
      max_in_flight: stats.maxInFlight,
    };
  } finally {
    await server.close();
  }
}
