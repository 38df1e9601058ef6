// Convergence (voice divergence, higher = more distinct voices) and ideas quantity: once per channel,
// a DM included, on the channel's whole trajectory. Convergence gets vocabulary statistics as evidence.
import { channelTrajectory, type Transcript } from "../core/index.ts";
import { renderVocabularyEvidence, vocabularyStatistics } from "../text/index.ts";
import { channelContext, targetVariables } from "./context.ts";
import type { PropositionLookup } from "./plan-input.ts";
import { type PlanEntry, type PlanShape, planTarget } from "./planner.ts";

export function vocabularyEvidence(transcript: Transcript, channel: string): string {
  const byAgent = new Map<string, string[]>();
  for (const e of channelTrajectory(transcript, channel)) {
    if (e.kind !== "action") continue;
    let list = byAgent.get(e.message.sender);
    if (!list) byAgent.set(e.message.sender, (list = []));
    list.push(e.message.text);
  }
  const names = new Map(transcript.agents.map((a) => [a.id, a.name]));
  return renderVocabularyEvidence(vocabularyStatistics(byAgent), names);
}

/** `evidence` is {@link vocabularyEvidence}'s text for this channel. */
export function* planConvergence(
  shape: PlanShape,
  transcript: Transcript,
  channel: string,
  lookup: PropositionLookup,
  evidence: string,
): Generator<PlanEntry> {
  const set = lookup("convergence");
  if (!set) return;
  yield* planTarget(shape, set, { channel, variables: targetVariables(transcript, { channel }) }, () =>
    channelContext(transcript, channel, channelTrajectory(transcript, channel), set, evidence),
  );
}

export function* planIdeasQuantity(
  shape: PlanShape,
  transcript: Transcript,
  channel: string,
  lookup: PropositionLookup,
): Generator<PlanEntry> {
  const set = lookup("ideas_quantity");
  if (!set) return;
  yield* planTarget(shape, set, { channel, variables: targetVariables(transcript, { channel }) }, () =>
    channelContext(transcript, channel, channelTrajectory(transcript, channel), set),
  );
}
