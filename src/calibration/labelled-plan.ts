// The persona plan narrowed to labelled items: what a calibration (and its order effects) asks the judge.
import {
  PERSONA_DIMENSIONS,
  type PersonaDimension,
  transcriptHash,
  type VerdictKey,
  verdictKeyString,
} from "../core/index.ts";
import type { JudgePlan, PlannedCall } from "../engine/index.ts";
import { type ItemMeta, planFor, type StoredPersonaInput } from "../personas/index.ts";
import type { LabelItem } from "./label-items.ts";

/** The key a labelled item and a planned verdict share, trial aside. */
function targetKey(x: {
  dimension: string;
  proposition_id: string;
  agent_id?: string;
  message_id?: string;
  channel?: string;
}): string {
  return verdictKeyString({ ...x, trial: 1 });
}

/**
 * The persona plan of the labelled items only: the same requests an evaluation makes for them (same
 * windows, same claims, so the same cache keys), every other item of a call dropped.
 */
export function labelledPlan(
  kept: StoredPersonaInput,
  items: readonly LabelItem[],
  { mode = "individual", trials = 1 }: { mode?: "individual" | "batch"; trials?: number } = {},
): JudgePlan<ItemMeta> {
  const wanted = new Set(items.map(targetKey));
  const dimensions = PERSONA_DIMENSIONS.filter((d) => items.some((i) => i.dimension === d));
  const messages = [...new Set(items.flatMap((i) => (i.message_id !== undefined ? [i.message_id] : [])))];
  const plan = planFor({
    transcript: kept.transcript,
    propositions: kept.propositions,
    config: {
      source: "calibration",
      judge: "calibration",
      mode,
      trials,
      dimensions: dimensions as PersonaDimension[],
      // Only the labelled messages of adherence and consistency are planned; agent and channel items are few.
      ...(messages.length > 0 ? { messages: messages.sort() } : {}),
      transcript_hash: transcriptHash(kept.transcript),
    },
  });
  const keep = (key: VerdictKey) => wanted.has(verdictKeyString({ ...key, trial: 1 }));
  return {
    *calls() {
      for (const call of plan.calls()) {
        const kept = call.items.map((item) => keep(item.key));
        if (kept.every(Boolean)) yield call;
        else if (kept.some(Boolean))
          yield {
            ...call,
            items: call.items.filter((_, i) => kept[i]),
            meta: call.meta.filter((_, i) => kept[i]),
          } satisfies PlannedCall<ItemMeta>;
      }
    },
    *trivial() {
      for (const t of plan.trivial()) if (keep(t.item.key)) yield t;
    },
  };
}
