// Which new messages an online run judges: a draw by a hash of the rule's name and the message, so that a run
// done again (its worker killed) judges the same messages, and a message's chance does not hang on its neighbours.
import { createHash } from "node:crypto";
import type { OnlineCandidate } from "../store/index.ts";
import type { OnlineRule } from "./online-rule.ts";

/** A message (or a stored session) a run may sample. */
export type CandidateMessage = OnlineCandidate;

/** A number in [0, 1) fixed by the rule and the message. */
function draw(rule: string, message: CandidateMessage): number {
  const digest = createHash("sha256").update(`${rule}\0${message.source}\0${message.id}`).digest();
  return digest.readUIntBE(0, 6) / 2 ** 48;
}

/**
 * The messages a rule samples from its candidates: with `rate`, each whose draw is below the rate (a Bernoulli
 * sample, about rate × n of them); with `messages: n`, the n with the lowest draws (a uniform sample of n).
 * In the candidates' order.
 */
export function sampleMessages(
  rule: Pick<OnlineRule, "name" | "sample">,
  candidates: readonly CandidateMessage[],
): CandidateMessage[] {
  const drawn = candidates.map((message) => ({ message, at: draw(rule.name, message) }));
  const { sample } = rule;
  if ("rate" in sample) return drawn.filter((d) => d.at < sample.rate).map((d) => d.message);
  const kept = new Set(
    [...drawn]
      .sort((a, b) => a.at - b.at)
      .slice(0, sample.messages)
      .map((d) => d.message),
  );
  return candidates.filter((m) => kept.has(m));
}
