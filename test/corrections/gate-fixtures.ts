// Shared pieces of the action gate tests: the scripted drift (test/fixtures/corrections/drift.json),
// one-proposition gate sets, and judges whose verdicts are hand-written here, keyed by the message text.
import { readFileSync } from "node:fs";
import { type Agent, AgentSchema, type GateDimension } from "../../src/core/index.ts";
import type {
  GateHistoryEntry,
  GatePropositionSet,
  GatePropositionSets,
} from "../../src/corrections/index.ts";
import type { Judge, JudgeRequest, JudgeResponse } from "../../src/judge/index.ts";
import { scriptedJudge } from "../../src/testing/index.ts";

interface DriftFixture {
  agent: Agent;
  history: GateHistoryEntry[];
  stimulus: string;
  drift: string;
  retries: [string, string];
}

const raw = JSON.parse(readFileSync(new URL("../fixtures/corrections/drift.json", import.meta.url), "utf8"));
export const drift: DriftFixture = { ...raw, agent: AgentSchema.parse(raw.agent) };
export const marta = drift.agent;

/** One proposition per dimension, so a hand-written score is the dimension's score. */
export function gateSet(
  dimension: GateDimension,
  includePersonas = dimension === "adherence",
): GatePropositionSet {
  return {
    dimension,
    include_personas: includePersonas || dimension === "suitability",
    hard: false,
    target_type: "agent",
    first_n: 5,
    last_n: 10,
    double_check: false,
    propositions: [
      {
        id: `${dimension}-claim`,
        claim: `{{agent_name}}'s message is fine on ${dimension}.`,
        weight: 1,
        inverted: false,
        recommendations_for_improvement: `Recommendation for ${dimension}: speak as {{agent_name}} would.`,
      },
    ],
    sources: ["test"],
    hash: `test-${dimension}`,
  };
}

export const ALL_SETS: GatePropositionSets = {
  adherence: gateSet("adherence"),
  consistency: gateSet("consistency"),
  fluency: gateSet("fluency"),
  suitability: gateSet("suitability"),
};

/** Hand-written adherence scores of the drift's texts; other dimensions and texts score 8. */
export const ADHERENCE_BY_TEXT = new Map<string, number>([
  [drift.drift, 1],
  [drift.retries[0], 4],
  [drift.retries[1], 6],
]);

/** A judge scoring adherence by text (hand-written above) and every other claim 8. */
export function driftJudge(scores = ADHERENCE_BY_TEXT): Judge {
  return scriptedJudge((item, request) => {
    const text = request.context.action?.text ?? "";
    if (item.key.dimension === "adherence" && scores.has(text))
      return { score: scores.get(text)!, reasoning: `hand-written: adherence of "${text.slice(0, 20)}…"` };
    return { score: 8, reasoning: "hand-written: fine" };
  });
}

/** A judge that records every request and answers only when `release()` is called (or never). */
export function heldJudge(
  score = 8,
): Judge & { requests: JudgeRequest[]; release(): void; signals: AbortSignal[] } {
  const waiting: (() => void)[] = [];
  const requests: JudgeRequest[] = [];
  const signals: AbortSignal[] = [];
  return {
    descriptor: { provider: "fixtures", model: "held", prompt_version: "fixtures" },
    requests,
    signals,
    release() {
      for (const go of waiting.splice(0)) go();
    },
    judge(request, options): Promise<JudgeResponse> {
      requests.push(request);
      if (options?.signal) signals.push(options.signal);
      // Its one model call goes out at once, and is billed whether or not an answer comes.
      options?.onCall?.();
      return new Promise((resolve) => {
        waiting.push(() =>
          resolve({
            verdicts: request.items.map((item) => ({ ok: true, key: item.key, score, reasoning: "held" })),
            usage: { input_tokens: 10, output_tokens: 2 },
            calls: 1,
          }),
        );
      });
    },
  };
}
