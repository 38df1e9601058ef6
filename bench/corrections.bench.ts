// Benchmark for src/corrections: the action gate's own overhead with an instant judge (p50 < 1 ms per
// check), the similarity and repetition checks (≥ 100,000 per second each), a hung judge (the gate
// returns within 5.05 s), and the word- vs character-Jaccard distribution on unrelated and repeated
// messages (the example transcript's 55 messages, and near-repeats made from each).
import { readFileSync } from "node:fs";
import type { Agent, Transcript } from "../src/core/index.ts";
import {
  actionSimilarity,
  createActionGate,
  type GateHistoryEntry,
  repetitionCheck,
} from "../src/corrections/index.ts";
import type { Judge, JudgeResponse } from "../src/judge/index.ts";
import { characterMultisetJaccard, wordJaccard } from "../src/text/index.ts";

const transcript = JSON.parse(
  readFileSync(new URL("../examples/ensemble/transcript.json", import.meta.url), "utf8"),
) as Transcript;
const texts = transcript.messages.map((m) => m.text);

/** Answers every claim with 8 at once: what is left is the gate's own work. */
const instantJudge: Judge = {
  descriptor: { provider: "bench", model: "instant", prompt_version: "bench" },
  async judge(request): Promise<JudgeResponse> {
    return {
      verdicts: request.items.map((item) => ({ ok: true, key: item.key, score: 8, reasoning: "instant" })),
      usage: { input_tokens: 0, output_tokens: 0 },
      calls: 1,
    };
  },
};

/** Never answers and ignores its abort signal: the worst a judge can do. */
const hungJudge: Judge = {
  descriptor: { provider: "bench", model: "hung", prompt_version: "bench" },
  judge: () => new Promise<JudgeResponse>(() => {}),
};

const agent: Agent = transcript.agents[0]!;
const history: GateHistoryEntry[] = transcript.messages
  .slice(0, 20)
  .map((m) => (m.sender === agent.id ? { text: m.text } : { text: m.text, from: m.sender }));

const ALL_ON = {
  gate_adherence_enabled: true,
  gate_consistency_enabled: true,
  gate_fluency_enabled: true,
  gate_suitability_enabled: true,
  gate_similarity_enabled: true,
};

export interface CorrectionFigures {
  checks: number;
  gate_p50_ms: number;
  gate_p99_ms: number;
  similarity_per_s: Rate;
  repetition_per_s: Rate;
  hung_judge_ms: number;
  distribution: Record<string, Quantiles>;
}

export interface Quantiles {
  n: number;
  min: number;
  p10: number;
  p50: number;
  p90: number;
  max: number;
  /** Share of pairs above the gate's 0.6. */
  above_0_6: number;
}

export async function benchCorrections({ skipHung = false } = {}): Promise<CorrectionFigures> {
  const gate = createActionGate({ judge: instantJudge, config: ALL_ON });
  const times: number[] = [];
  const checks = 5_000;
  for (let i = 0; i < checks + 500; i++) {
    const started = performance.now();
    await gate.check({ agent, tentativeText: texts[i % texts.length]!, history });
    if (i >= 500) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);

  const recent = texts.slice(0, 5);
  // A new tentative text every call (the recent messages repeat, as they do turn after turn).
  const tentative = Array.from({ length: 10_000 }, (_, i) => `${texts[i % texts.length]} (${i})`);
  const similarity = perSecond((i) => actionSimilarity(tentative[i % tentative.length]!, recent));
  const windows = texts.map((_, i) => texts.slice(i, i + 5)).filter((w) => w.length === 5);
  const repetition = perSecond((i) => repetitionCheck(windows[i % windows.length]!));

  let hung = Number.NaN;
  if (!skipHung) {
    const hungGate = createActionGate({ judge: hungJudge, config: ALL_ON });
    const started = performance.now();
    await hungGate.check({ agent, tentativeText: texts[0]!, history });
    hung = performance.now() - started;
  }

  return {
    checks,
    gate_p50_ms: times[Math.floor(times.length / 2)]!,
    gate_p99_ms: times[Math.floor(times.length * 0.99)]!,
    similarity_per_s: similarity,
    repetition_per_s: repetition,
    hung_judge_ms: hung,
    distribution: similarityDistribution(),
  };
}

/** Per second of wall time and of this process's CPU time (a loaded machine lowers the first only). */
export interface Rate {
  wall: number;
  cpu: number;
}

/** Calls `fn` for about a second (after a warm-up) and returns calls per second. */
function perSecond(fn: (i: number) => unknown): Rate {
  for (let i = 0; i < 20_000; i++) fn(i);
  let calls = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  while (performance.now() - started < 1_000) {
    for (let i = 0; i < 1_000; i++) fn(calls + i);
    calls += 1_000;
  }
  const wallS = (performance.now() - started) / 1_000;
  const used = process.cpuUsage(cpu);
  return { wall: calls / wallS, cpu: calls / ((used.user + used.system) / 1e6) };
}

/**
 * Word and character Jaccard over every pair of distinct example messages (unrelated: one conversation,
 * but no message repeats another) and over near-repeats of each message: a preface added, every fifth
 * word dropped, the second half rewritten.
 */
export function similarityDistribution(): Record<string, Quantiles> {
  const unrelated: [string, string][] = [];
  for (let i = 0; i < texts.length; i++)
    for (let j = i + 1; j < texts.length; j++) unrelated.push([texts[i]!, texts[j]!]);
  const repeated: [string, string][] = texts.flatMap((t) => {
    const words = t.split(" ");
    const half = Math.ceil(words.length / 2);
    return [
      [t, `As I said before, ${t}`],
      [t, words.filter((_, k) => k % 5 !== 4).join(" ")],
      [t, `${words.slice(0, half).join(" ")} and that is all there is to it.`],
    ] as [string, string][];
  });
  return {
    "unrelated, word": quantiles(unrelated.map(([a, b]) => wordJaccard(a, b))),
    "unrelated, character": quantiles(unrelated.map(([a, b]) => characterMultisetJaccard(a, b))),
    "repeated, word": quantiles(repeated.map(([a, b]) => wordJaccard(a, b))),
    "repeated, character": quantiles(repeated.map(([a, b]) => characterMultisetJaccard(a, b))),
  };
}

function quantiles(values: number[]): Quantiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return {
    n: sorted.length,
    min: sorted[0]!,
    p10: at(0.1),
    p50: at(0.5),
    p90: at(0.9),
    max: sorted[sorted.length - 1]!,
    above_0_6: sorted.filter((v) => v > 0.6).length / sorted.length,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await benchCorrections({ skipHung: process.argv.includes("--skip-hung") });
  console.log(JSON.stringify(figures, null, 2));
}
