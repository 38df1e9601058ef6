// A simulated world with the action gate on (issue 21): N agents × S steps in parallel order, the agents'
// model and the gate's judge each on a fake OpenAI-compatible server at a fixed latency. Measured: judge
// calls and tokens per committed message, and the wall time against the critical path (each step waits
// for one agent round trip, then one gate round trip: the gate judges its dimensions at once).
import { createOpenAI } from "@ai-sdk/openai";
import { CorrectionSettingsSchema } from "../src/core/index.ts";
import { createActionGate, gateHistory, memoryCorrectionLog } from "../src/corrections/index.ts";
import { LlmJudge } from "../src/judge/index.ts";
import { createWorld, type WorldFile, WorldFileSchema } from "../src/sim/index.ts";
import { startFakeOpenAIServer } from "../src/testing/index.ts";
import { startFakeServerInWorker } from "./fake-server-worker.ts";

export interface WorldFigures {
  agents: number;
  steps: number;
  latency_ms: number;
  committed: number;
  agent_calls: number;
  judge_calls: number;
  judge_input_tokens: number;
  judge_output_tokens: number;
  judge_calls_per_message: number;
  judge_tokens_per_message: number;
  gate_checks: number;
  wall_ms: number;
  /** CPU time of this process during the run (every thread, the judge server's worker included). */
  cpu_ms: number;
  critical_path_ms: number;
  agent_max_in_flight: number;
  judge_max_in_flight: number;
}

/** A world of `agents` agents in one channel, every one with all four gate dimensions on. */
export function benchWorldFile(agents: number, steps: number): WorldFile {
  return WorldFileSchema.parse({
    format: "dramaturg.world/v1",
    agents: Array.from({ length: agents }, (_, i) => ({
      id: `a${i + 1}`,
      name: `Agent ${i + 1}`,
      persona: `Agent ${i + 1}: a townsperson with opinion number ${i + 1} on the harbour festival.`,
    })),
    channels: [{ id: "town" }],
    facilitator: [{ channel: "town", text: "What should the harbour festival have?", every: 1 }],
    steps,
    order: "parallel",
    seed: 1,
  });
}

export async function benchWorld({
  agents = 20,
  steps = 10,
  latencyMs = 200,
}: {
  agents?: number;
  steps?: number;
  latencyMs?: number;
} = {}): Promise<WorldFigures> {
  const agentServer = await startFakeOpenAIServer({
    latencyMs,
    recordRequests: false,
    respond: (request, i) => {
      const system = String(request.messages[0]?.content ?? "");
      const name = /^You are ([^.]+)\./.exec(system)?.[1] ?? "someone";
      return {
        tool_calls: [
          {
            name: "send_message",
            arguments: { channel: "town", text: `${name}, call ${i}: a lantern parade.` },
          },
        ],
      };
    },
  });
  // The judge's server (most of the calls) on a thread of its own, as the judge benchmarks run it.
  const judgeServer = await startFakeServerInWorker(latencyMs);
  let closed = false;
  try {
    const judge = new LlmJudge({
      model: createOpenAI({ baseURL: judgeServer.url, apiKey: "bench" }).chat("fake-judge"),
      // Enough for a whole step's gate checks at once: the gate is what is measured, not a judge limit.
      concurrency: 1_024,
      descriptor: { provider: "openai-compatible", model: "fake-judge", base_url: judgeServer.url },
    });
    const config = CorrectionSettingsSchema.parse({
      gate_adherence_enabled: true,
      gate_consistency_enabled: true,
      gate_fluency_enabled: true,
      gate_suitability_enabled: true,
      gate_similarity_enabled: true,
    });
    const { entries, log } = memoryCorrectionLog();
    const gate = createActionGate({ judge, config, log, timeoutMs: 60_000 });
    const world = createWorld(benchWorldFile(agents, steps), {
      model: createOpenAI({ baseURL: agentServer.url, apiKey: "bench" }).chat("fake-agent"),
      beforeCommit: async ({ agent, text, history }) => {
        const result = await gate.check({
          agent,
          tentativeText: text,
          history: gateHistory(history),
        });
        return result.text;
      },
    });
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const { stats } = await world.run();
    const wall = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const judgeStats = await judgeServer.close();
    closed = true;
    const input = entries.reduce((sum, e) => sum + (e.token_usage?.input_tokens ?? 0), 0);
    const output = entries.reduce((sum, e) => sum + (e.token_usage?.output_tokens ?? 0), 0);
    return {
      agents,
      steps,
      latency_ms: latencyMs,
      committed: stats.messages,
      agent_calls: stats.agentCalls,
      judge_calls: judgeStats.calls,
      judge_input_tokens: input,
      judge_output_tokens: output,
      judge_calls_per_message: judgeStats.calls / stats.messages,
      judge_tokens_per_message: (input + output) / stats.messages,
      gate_checks: entries.length,
      wall_ms: wall,
      cpu_ms: (cpu.user + cpu.system) / 1000,
      critical_path_ms: steps * 2 * latencyMs,
      agent_max_in_flight: agentServer.stats.maxInFlight,
      judge_max_in_flight: judgeStats.maxInFlight,
    };
  } finally {
    await agentServer.close();
    if (!closed) await judgeServer.close();
  }
}

// `node --import tsx bench/world.bench.ts` runs it alone and prints the figures.
if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchWorld(), null, 2));
