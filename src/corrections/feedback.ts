// What a regenerating agent is told after a failed check. Unlike TinyTroupe (latest failure only), every
// earlier failed attempt is shown with its failed dimensions, their scores, the judge's reasoning and the
// propositions' recommendations, and the call for radical change grows with each attempt.
import { type GateDimension, round } from "../core/index.ts";
import type { DimensionJudgement } from "./judge-dimension.ts";

/** One judged attempt, as the gate keeps it. */
export interface GateAttempt {
  /** 1 for the original message, 2 for the first regeneration, … */
  number: number;
  text: string;
  /** The enabled dimensions' judgements, in GATE_DIMENSIONS order. */
  dimensions: DimensionJudgement[];
  /** Highest word Jaccard against the agent's recent messages; null when the check is off. */
  similarity: number | null;
  similarityPassed: boolean;
  /** Every enabled dimension and the similarity check passed. */
  passed: boolean;
  /** Sum of the dimension scores (a dimension that passed without a score counts as its threshold). */
  total: number;
  /** Some dimension passed only because its judge did not answer (timeout or error). */
  failOpen: boolean;
}

/** What `regenerate` receives: the attempt to write, the failed attempts so far, and the text to show the agent. */
export interface GateFeedback {
  /** The attempt about to be generated (2 for the first retry). */
  attempt: number;
  /** How many attempts the gate makes in all (the original and every retry). */
  maxAttempts: number;
  /** Every attempt so far, all failed, oldest first. */
  failed: readonly GateAttempt[];
  /** The feedback for the agent's prompt. */
  text: string;
}

const PROBLEMS: Readonly<Record<GateDimension, string>> = {
  adherence: "It does not sound like you: it departs from your persona",
  consistency: "It does not fit what you said earlier",
  fluency: "It does not read naturally: it is repetitive or formulaic",
  suitability: "It does not suit the situation: it does not answer what is going on",
};

/** The feedback for the attempt after `failed` (all of them failed checks). */
export function gateFeedback(
  failed: readonly GateAttempt[],
  { maxAttempts, maxSimilarity }: { maxAttempts: number; maxSimilarity: number },
): GateFeedback {
  const attempt = failed.length + 1;
  const parts = [
    `Your message was checked before sending and did not pass, so it was not sent. Write attempt ${attempt} of at most ${maxAttempts}.`,
    "",
    escalation(attempt),
  ];
  for (const a of failed) {
    parts.push("", `Attempt ${a.number} (not sent):`, "<<<", a.text, ">>>");
    for (const d of a.dimensions.filter((d) => !d.passed)) {
      parts.push(
        `- ${PROBLEMS[d.dimension]}. Score ${round(d.score ?? 0, 2)} out of 9 (needed ${d.threshold}).`,
      );
      for (const p of d.propositions.filter((p) => p.score !== null && p.score < d.threshold)) {
        parts.push(`  - ${p.id} scored ${round(p.score!, 2)}: ${oneLine(p.reasoning)}`);
        if (p.recommendation) parts.push(`    To improve: ${oneLine(p.recommendation)}`);
      }
    }
    if (!a.similarityPassed)
      parts.push(
        `- It is nearly the same as one of your recent messages: similarity ${round(a.similarity ?? 0, 2)} (at most ${maxSimilarity}). Say something new.`,
      );
  }
  parts.push("", "Reply with the new message only.");
  return { attempt, maxAttempts, failed, text: parts.join("\n") };
}

/** The standing call for change, stronger with each failed attempt (TinyTroupe's is the same every time). */
export function escalation(attempt: number): string {
  const failures = attempt - 1;
  if (failures <= 1)
    return "Fix every problem listed below: keep what worked, change what the checks objected to. Each failed attempt calls for MORE RADICAL changes than the one before.";
  if (failures === 2)
    return "2 attempts have failed. Be MORE RADICAL than last time: do not reword a failed attempt; change its content, angle and structure, so the new message clearly differs from every attempt below and addresses every problem listed for each of them.";
  return `${failures} attempts have failed. Be FAR MORE RADICAL: drop the approach of every attempt below and start from a different idea, then check it against every problem listed for each of them.`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
