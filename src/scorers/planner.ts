// Turns (proposition set × target × context) into judge calls: preconditions, batching and trials.
import {
  type PreconditionContext,
  type PropositionSet,
  type VerdictKey,
  verdictKindOf,
} from "../core/index.ts";
import { type JudgeContext, type JudgeItem, MAX_BATCH_SIZE } from "../judge/index.ts";
import { renderClaim } from "../propositions/index.ts";
import type { ItemMeta, PlannedCall, PlannedTrivial } from "./types.ts";

export interface PlanSink {
  calls: PlannedCall[];
  trivial: PlannedTrivial[];
  mode: "individual" | "batch";
  trials: number;
}

export interface Target {
  agentId?: string;
  channel?: string;
  messageId?: string;
  snippet?: string;
  variables: Readonly<Record<string, string | undefined>>;
}

/**
 * Adds the judge work for one proposition set on one target. A proposition whose precondition returns
 * false is trivially true (9, no judge call, TinyTroupe's rule). In batch mode the set's propositions
 * share calls of at most MAX_BATCH_SIZE items; in individual mode each is its own call. Each trial
 * repeats the work with its own key, so N trials are N real judgements.
 */
export function planTarget(
  sink: PlanSink,
  set: PropositionSet,
  target: Target,
  context: () => JudgeContext,
): void {
  const kind = verdictKindOf(set.dimension);
  const toJudge: { item: Omit<JudgeItem, "key">; keyBase: Omit<VerdictKey, "trial">; meta: ItemMeta }[] = [];
  for (const proposition of set.propositions) {
    const keyBase: Omit<VerdictKey, "trial"> = { dimension: set.dimension, proposition_id: proposition.id };
    if (target.agentId !== undefined) keyBase.agent_id = target.agentId;
    if (target.channel !== undefined) keyBase.channel = target.channel;
    if (target.messageId !== undefined) keyBase.message_id = target.messageId;
    const meta: ItemMeta = {
      dimension: set.dimension,
      proposition,
      set,
      agentId: target.agentId,
      channel: target.channel,
      messageId: target.messageId,
      snippet: target.snippet,
    };
    const claim = renderClaim(proposition, target.variables);
    if (proposition.precondition) {
      const ctx: PreconditionContext = {
        agentId: target.agentId,
        channel: target.channel,
        messageId: target.messageId,
        action: target.variables.action,
        variables: target.variables,
      };
      if (proposition.precondition(ctx) === false) {
        for (let trial = 1; trial <= sink.trials; trial++)
          sink.trivial.push({
            item: { key: { ...keyBase, trial }, kind, claim },
            meta,
            reasoning: "The precondition does not hold, so the claim is trivially true.",
          });
        continue;
      }
    }
    toJudge.push({ item: { kind, claim }, keyBase, meta });
  }
  if (toJudge.length === 0) return;
  // The context is built once per target and shared by every call and trial on it.
  const shared = context();
  const size = sink.mode === "batch" && kind !== "count" ? MAX_BATCH_SIZE : 1;
  for (let trial = 1; trial <= sink.trials; trial++) {
    for (let i = 0; i < toJudge.length; i += size) {
      const chunk = toJudge.slice(i, i + size);
      sink.calls.push({
        request: {
          items: chunk.map((c) => ({ ...c.item, key: { ...c.keyBase, trial } })),
          context: shared,
          doubleCheck: set.double_check,
        },
        meta: chunk.map((c) => c.meta),
      });
    }
  }
}
