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

/** How the work on a target is split: individual or batch calls, and how many trials. */
export interface PlanShape {
  mode: "individual" | "batch";
  trials: number;
}

/** One piece of planned work: a judge call, or a verdict given without one. */
export type PlanEntry =
  | { call: PlannedCall; trivial?: undefined }
  | { trivial: PlannedTrivial; call?: undefined };

export interface Target {
  agentId?: string;
  channel?: string;
  messageId?: string;
  snippet?: string;
  variables: Readonly<Record<string, string | undefined>>;
}

/**
 * The verdict key of one trial, its fields set one by one in the order an object spread would give. Not
 * `{ ...keyBase, trial }`: V8's spread clones survive young-generation collections far more often than
 * plain literals (measured: 12× the bytes promoted over 500,000 keys), and a run then grows its heap with
 * garbage that only a full collection frees (docs/design/performance.md, "Memory").
 */
function keyOf(keyBase: Omit<VerdictKey, "trial">, trial: number): VerdictKey {
  const key: Omit<VerdictKey, "trial"> & { trial?: number } = {
    dimension: keyBase.dimension,
    proposition_id: keyBase.proposition_id,
  };
  if (keyBase.agent_id !== undefined) key.agent_id = keyBase.agent_id;
  if (keyBase.channel !== undefined) key.channel = keyBase.channel;
  if (keyBase.message_id !== undefined) key.message_id = keyBase.message_id;
  key.trial = trial;
  return key as VerdictKey;
}

/**
 * Produces the judge work for one proposition set on one target. A proposition whose precondition returns
 * false is trivially true (9, no judge call, TinyTroupe's rule). In batch mode the set's propositions
 * share calls of at most MAX_BATCH_SIZE items; in individual mode each is its own call. Each trial
 * repeats the work with its own key, so N trials are N real judgements. The context is built only when
 * a call asks for it (when it is sent), once for all the calls and trials on the target.
 */
export function* planTarget(
  shape: PlanShape,
  set: PropositionSet,
  target: Target,
  context: () => JudgeContext,
): Generator<PlanEntry> {
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
        for (let trial = 1; trial <= shape.trials; trial++)
          yield {
            trivial: {
              item: { key: keyOf(keyBase, trial), kind, claim },
              meta,
              reasoning: "The precondition does not hold, so the claim is trivially true.",
            },
          };
        continue;
      }
    }
    toJudge.push({ item: { kind, claim }, keyBase, meta });
  }
  if (toJudge.length === 0) return;
  // Built on first use and shared by every call and trial on the target.
  let shared: JudgeContext | undefined;
  const contextOnce = () => (shared ??= context());
  const size = shape.mode === "batch" && kind !== "count" ? MAX_BATCH_SIZE : 1;
  for (let trial = 1; trial <= shape.trials; trial++) {
    for (let i = 0; i < toJudge.length; i += size) {
      const chunk = toJudge.slice(i, i + size);
      yield {
        call: {
          items: chunk.map((c) => ({ kind: c.item.kind, claim: c.item.claim, key: keyOf(c.keyBase, trial) })),
          doubleCheck: set.double_check,
          context: contextOnce,
          meta: chunk.map((c) => c.meta),
        },
      };
    }
  }
}
