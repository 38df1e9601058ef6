// Benchmark for src/calibration/order-effects.ts (issue 39, point 4): 1,000 labelled adherence items (250
// messages × 4 default propositions) judged individually, in batches and in shuffled batches by an instant
// judge, so the figure is Dramaturg's own cost of the three plans and the comparison. No target: a figure.
import { type LabelItem, measureOrderEffects, type OrderEffects } from "../src/calibration/index.ts";
import { preparePersonaEvaluation } from "../src/personas/index.ts";
import { propositionSetFor } from "../src/propositions/index.ts";
import { syntheticTranscript } from "../src/testing/index.ts";
import { InstantJudge } from "./instant-judge.ts";
import { fmt, type Outcome } from "./report.ts";

const MESSAGES = 250;

async function benchOrderEffects(): Promise<Outcome> {
  const prepared = await preparePersonaEvaluation({
    transcript: syntheticTranscript({ messages: MESSAGES }),
    dimensions: ["adherence"],
  });
  const kept = { transcript: prepared.transcript, propositions: prepared.propositions };
  const items: LabelItem[] = kept.transcript.messages.flatMap((m, i) =>
    propositionSetFor(kept.propositions, "adherence", m.sender)!.propositions.map((p, j) => ({
      dimension: "adherence" as const,
      proposition_id: p.id,
      agent_id: m.sender,
      message_id: m.id,
      inverted: p.inverted,
      raters: [{ rater: "a", score: (i + j) % 10, source: { file: "bench", line: i + 1 } }],
    })),
  );
  // Compiled and optimised on a small run first, as any second call in a process would be.
  await measureOrderEffects({ kept, items: items.slice(0, 40), judge: new InstantJudge() });
  const judge = new InstantJudge();
  const start = performance.now();
  const effects: OrderEffects = await measureOrderEffects({ kept, items, judge });
  const wall = performance.now() - start;
  return {
    checks: [
      {
        metric: `${fmt(items.length)} labelled items, three conditions (${fmt(judge.requests)} requests): wall`,
        value: `${fmt(wall / 1000, 2)} s`,
      },
    ],
    details: {
      items: items.length,
      requests: judge.requests,
      wall_ms: wall,
      batched_items: effects.batched_items,
    },
  };
}

/** Registered in bench/run.ts as one entry of its list. */
export const orderEffectsBenchmark = {
  name: "order-effects",
  about: "issue 39: 1,000 labelled items judged individually, in batches and shuffled, instant judge",
  run: benchOrderEffects,
};
