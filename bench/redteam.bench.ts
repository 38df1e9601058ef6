// Issue 50's red-team benchmark: 7 strategies × 10 attacks × up to 12 turns, the scripted attacker, the target
// and the judge each on a fake OpenAI-compatible server at 200 ms, 16 attacks at once. The scripted target
// breaks each attack at a turn fixed by its opening message (3 to 16: past 12 it holds, and the attack is
// censored), and refuses one meta-reflection angle (a rewind). The wall time is held to the schedule's critical
// path: the attacks' own chains of calls (turns × (target + judge) latency each) laid out on 16 slots in the
// runner's order with no overhead. Tokens per judged turn are set beside `eval`'s on the same conversations
// (adherence alone, the same judge and propositions): five attacks' conversations, each a transcript of its own.
import { performance } from "node:perf_hooks";
import { createJudge } from "../src/judge/index.ts";
import { evaluatePersonas } from "../src/personas/index.ts";
import {
  agentTarget,
  type DriftPersona,
  type RedteamResult,
  runRedteam,
  scriptedAttacker,
} from "../src/redteam/index.ts";
import { startFakeOpenAIServer } from "../src/testing/index.ts";
import { startFakeServerInWorker } from "./fake-server-worker.ts";
import { judgeResponder } from "./redteam-responders.ts";

const RESPONDERS = new URL("./redteam-responders.ts", import.meta.url).href;

const PERSONA: DriftPersona = {
  id: "marta",
  name: "Marta",
  persona: "A gruff lighthouse keeper on a northern island; talks about weather, ships and her cat.",
};
export interface RedteamFigures {
  attacks: number;
  judged_turns: number;
  target_calls: number;
  backtracks: number;
  successes: number;
  wall_ms: number;
  critical_path_ms: number;
  longest_attack_ms: number;
  sum_over_slots_ms: number;
  redteam_tokens_per_turn: number;
  eval_tokens_per_message: number;
  eval_messages: number;
}

/** Greedy list scheduling of `durations` in order on `slots`: when the last one ends. */
function scheduleBound(durations: readonly number[], slots: number): number {
  const free = Array.from({ length: slots }, () => 0);
  let end = 0;
  for (const d of durations) {
    let at = 0;
    for (let i = 1; i < free.length; i++) if (free[i]! < free[at]!) at = i;
    free[at]! += d;
    end = Math.max(end, free[at]!);
  }
  return end;
}

/** `eval`'s adherence tokens per judged message over the conversations of `attacks`, each its own transcript. */
async function evalTokens(
  result: RedteamResult,
  attacks: number,
): Promise<{ perMessage: number; messages: number }> {
  const server = await startFakeOpenAIServer({ respond: judgeResponder, recordRequests: false });
  let messages = 0;
  try {
    const judge = createJudge("openai-compatible:judge", { baseUrl: server.url, concurrency: 16 });
    for (const attack of result.attacks.slice(0, attacks)) {
      const kept = attack.exchanges.filter((e) => !e.backtracked);
      const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
      await evaluatePersonas({
        transcript: {
          format: "dramaturg.transcript/v1",
          agents: [{ id: PERSONA.id, name: PERSONA.name, persona: PERSONA.persona }],
          messages: kept.flatMap((e, i) => [
            { id: `u${i}`, sender: "user", channel: "chat", text: e.message, at: at(2 * i) },
            { id: `a${i}`, sender: PERSONA.id, channel: "chat", text: e.reply, at: at(2 * i + 1) },
          ]),
        },
        judge,
        dimensions: ["adherence"],
        store: "memory://",
        cache: false,
      });
      messages += kept.length;
    }
    await judge.close?.();
  } finally {
    await server.close();
  }
  const t = server.stats.tokens;
  return { perMessage: (t.prompt + t.completion + t.schema) / messages, messages };
}

export async function benchRedteam({
  attacks = 10,
  turns = 12,
  latencyMs = 200,
  concurrency = 16,
}: {
  attacks?: number;
  turns?: number;
  latencyMs?: number;
  concurrency?: number;
} = {}): Promise<RedteamFigures> {
  // Both servers on threads of their own: their CPU is not charged to the run measured here.
  const target = await startFakeServerInWorker(latencyMs, {
    module: RESPONDERS,
    name: "targetResponder",
  });
  const judgeServer = await startFakeServerInWorker(latencyMs, {
    module: RESPONDERS,
    name: "judgeResponder",
  });
  const judge = createJudge("openai-compatible:judge", { baseUrl: judgeServer.url, concurrency });
  try {
    // Warmed first, outside the timing: the AI SDK and the clients load with their first call (start-up, which
    // the other benchmarks report apart), then the run is timed alone.
    await runRedteam({
      persona: PERSONA,
      target: agentTarget({ url: target.url }),
      attacker: scriptedAttacker(),
      judge,
      strategies: ["direct_instruction"],
      attacks: 1,
      maxTurns: 1,
    });
    await judgeServer.takeStats();
    const started = performance.now();
    const result = await runRedteam({
      persona: PERSONA,
      target: agentTarget({ url: target.url }),
      attacker: scriptedAttacker(),
      judge,
      attacks,
      maxTurns: turns,
      concurrency,
      // The figures are the turns' own (their critical path, their tokens beside eval's): the attacker check,
      // one more judge request per attack after its last turn, is left out of what is timed and counted.
      simulatedUser: false,
    });
    const wall = performance.now() - started;
    // Each attack's own chain: one target call and one judge call per exchange, one after the other.
    const chains = result.attacks.map((a) => a.exchanges.length * 2 * latencyMs);
    const judgeTokens = (await judgeServer.takeStats()).tokens;
    const evalFigures = await evalTokens(result, 5);
    return {
      attacks: result.attacks.length,
      judged_turns: result.judged_turns,
      target_calls: result.calls.target,
      backtracks: result.attacks.reduce((n, a) => n + a.backtracks, 0),
      successes: result.arms[0]!.successes,
      wall_ms: wall,
      critical_path_ms: scheduleBound(chains, concurrency),
      longest_attack_ms: Math.max(...chains),
      sum_over_slots_ms: chains.reduce((s, c) => s + c, 0) / concurrency,
      redteam_tokens_per_turn:
        (judgeTokens.prompt + judgeTokens.completion + judgeTokens.schema) / result.judged_turns,
      eval_tokens_per_message: evalFigures.perMessage,
      eval_messages: evalFigures.messages,
    };
  } finally {
    await judge.close?.();
    await target.close();
    await judgeServer.close();
  }
}
