// The persona aggregator gives the same bits for the same verdicts in any order: scores (a hard set's
// among them), the reasonings kept when scores tie, and the ideas counted over trials.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { contentHash, type Verdict, verdictKeyString } from "../../src/core/index.ts";
import {
  aggregatePersonaScores,
  preparePersonaEvaluation,
  type ScoredVerdict,
} from "../../src/personas/index.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const hashOf = (text: string) => Number.parseInt(contentHash(text).slice(0, 8), 16);

/** A verdict for every planned item, decided by its key: scores 0–9, three reasonings, counts per trial. */
function verdictsOf(plan: Awaited<ReturnType<typeof preparePersonaEvaluation>>["plan"]): ScoredVerdict[] {
  const out: ScoredVerdict[] = [];
  for (const call of plan.calls())
    call.items.forEach((item, i) => {
      const key = verdictKeyString(item.key);
      const n = hashOf(key);
      const verdict: Verdict =
        item.kind === "count"
          ? {
              ok: true,
              key: item.key,
              count: n % 5,
              ideas: [`idea ${n % 3}`],
              reasoning: `counted in trial ${item.key.trial}`,
            }
          : { ok: true, key: item.key, score: n % 10, reasoning: `reason ${n % 3}` };
      out.push({ verdict, meta: call.meta[i]! });
    });
  for (const t of plan.trivial())
    out.push({
      verdict: { ok: true, key: t.item.key, score: 9, reasoning: t.reasoning, trivial: true },
      meta: t.meta,
    });
  return out;
}

/** A seeded shuffle (Fisher–Yates on a linear congruential generator). */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe("persona aggregation", () => {
  it("the same verdicts in plan order, reversed or shuffled give the same scores to the bit", async () => {
    const { plan } = await preparePersonaEvaluation({
      transcript: `${ROOT}examples/ensemble/transcript.json`,
      propositions: `${ROOT}examples/ensemble/propositions`,
      trials: 2,
    });
    const verdicts = verdictsOf(plan);
    const reference = JSON.stringify(aggregatePersonaScores(plan, verdicts));
    expect(JSON.stringify(aggregatePersonaScores(plan, [...verdicts].reverse()))).toBe(reference);
    for (const seed of [1, 2, 3])
      expect(JSON.stringify(aggregatePersonaScores(plan, shuffled(verdicts, seed)))).toBe(reference);
  });

  it("a hard proposition's mean is the exact mean of its penalised scores", async () => {
    const { plan } = await preparePersonaEvaluation({
      transcript: `${ROOT}examples/ensemble/transcript.json`,
      propositions: `${ROOT}examples/ensemble/propositions`,
      dimensions: ["adherence"],
      agents: ["ines"],
    });
    const verdicts = verdictsOf(plan);
    const scores = aggregatePersonaScores(plan, verdicts);
    const hard = scores.agents[0]!.dimensions.adherence!.propositions.find((p) => p.hard && !p.inverted)!;
    // In tenths, every penalised score (×8/10) and every 9 (×10/10) is a whole number: the exact sum.
    const raw = verdicts
      .filter((v) => v.meta.proposition.id === hard.id)
      .map((v) => (v.verdict.ok ? v.verdict.score! : 0));
    const tenths = raw.reduce((sum, s) => sum + (s < 9 ? s * 8 : s * 10), 0);
    expect(hard.score).toBe(tenths / (10 * raw.length));
  });
});
