// What the labelling page asks people to label: a persona evaluation's judged items — one per (dimension,
// proposition, agent, message or channel), as a `dramaturg.labels/v1` label targets them — in a stable order,
// and the evidence of one item: the message, the agent's persona, the claim and the window the judge read.
import { compareCodeUnits, contentHash, isPersonaDimension } from "../core/index.ts";
import {
  PersonaRunConfigSchema,
  parseStoredPersonaInput,
  planFor,
  type StoredPersonaInput,
} from "../personas/index.ts";
import { propositionSetFor } from "../propositions/index.ts";
import type { EvaluationRow, LabelRow, ScoreRow, Store } from "../store/index.ts";
import { type JudgeWindow, propositionKey, runEvidence, windowKey } from "./run-evidence.ts";

/** An item to label: the target of a label, and the verdicts (every trial) the judge gave it. */
export interface LabellingItem {
  /** A short digest of the target: how the page's links and form name the item. */
  key: string;
  dimension: string;
  proposition_id: string;
  agent_id: string | null;
  message_id: string | null;
  channel: string | null;
  rows: ScoreRow[];
}

type Target = Pick<LabellingItem, "dimension" | "proposition_id" | "agent_id" | "message_id" | "channel">;

export const itemKey = (t: Target) =>
  contentHash([t.dimension, t.proposition_id, t.agent_id, t.message_id, t.channel]);

/** Which of a rater's labels is of which item. */
export const labelItemKey = (label: LabelRow) => itemKey(label);

// The dimensions in the order the scorers report them; within one target, its items follow this order.
const DIMENSION_ORDER = ["adherence", "consistency", "fluency", "convergence"];

/**
 * The items of an evaluation's verdicts that a label can target, in the order a person labels them: each
 * message in transcript order with its propositions together (one reading of the message serves them all),
 * then each agent as a whole, then each channel. Left out: ideas quantity (a count of ideas, not a 0–9
 * claim score) and targets the judge never looked at (every verdict trivially given by a false precondition).
 */
export function labellingQueue(
  rows: readonly ScoreRow[],
  kept: StoredPersonaInput | undefined,
): LabellingItem[] {
  const byTarget = new Map<string, LabellingItem>();
  for (const row of rows) {
    if (row.dimension === "ideas_quantity" || row.count !== null) continue;
    const target: Target = {
      dimension: row.dimension,
      proposition_id: row.proposition_id,
      agent_id: row.agent_id,
      message_id: row.message_id,
      channel: row.agent_id === null ? row.channel : null,
    };
    const key = itemKey(target);
    let item = byTarget.get(key);
    if (!item) byTarget.set(key, (item = { key, ...target, rows: [] }));
    item.rows.push(row);
  }
  const messageAt = new Map(kept?.transcript.messages.map((m, i) => [m.id, i]) ?? []);
  const agentAt = new Map(kept?.transcript.agents.map((a, i) => [a.id, i]) ?? []);
  const rank = (item: LabellingItem): [number, number, string] =>
    item.message_id !== null
      ? [0, messageAt.get(item.message_id) ?? Number.MAX_SAFE_INTEGER, item.message_id]
      : item.agent_id !== null
        ? [1, agentAt.get(item.agent_id) ?? Number.MAX_SAFE_INTEGER, item.agent_id]
        : [2, 0, item.channel ?? ""];
  const dimensionAt = (d: string) => {
    const at = DIMENSION_ORDER.indexOf(d);
    return at === -1 ? DIMENSION_ORDER.length : at;
  };
  return [...byTarget.values()]
    .filter((item) => item.rows.some((r) => r.status !== "trivial"))
    .sort((a, b) => {
      const [ka, pa, ia] = rank(a);
      const [kb, pb, ib] = rank(b);
      return (
        ka - kb ||
        pa - pb ||
        compareCodeUnits(ia, ib) ||
        dimensionAt(a.dimension) - dimensionAt(b.dimension) ||
        compareCodeUnits(a.dimension, b.dimension) ||
        compareCodeUnits(a.proposition_id, b.proposition_id)
      );
    });
}

/** What a person reads before scoring an item. Whatever the evaluation did not keep is absent. */
export interface ItemEvidence {
  /** The agent's display name (message and agent items). */
  speaker?: string;
  persona?: unknown;
  message?: { id: string; channel: string; recipient?: string; text: string };
  /** The claim with the agent's name filled in. */
  claim?: string;
  inverted: boolean;
  window?: JudgeWindow;
}

/** The evaluation's kept transcript and propositions, when it kept them. */
export async function keptInput(store: Store, evaluationId: string): Promise<StoredPersonaInput | undefined> {
  try {
    return parseStoredPersonaInput(await store.evaluations.input(evaluationId));
  } catch {
    return undefined; // kept by another version: the page shows what the verdicts alone give
  }
}

/**
 * The evidence of one item: for a message or an agent, what the run pages show (run-evidence.ts: the
 * message, the claim, the window rebuilt by planning again); for a channel, its claim and the window planned
 * the same way. The persona is the kept transcript's, else the store's agent.
 */
export async function itemEvidence(
  store: Store,
  evaluation: EvaluationRow,
  kept: StoredPersonaInput | undefined,
  item: LabellingItem,
): Promise<ItemEvidence> {
  const inverted = item.rows.some((r) => r.inverted === true);
  if (item.agent_id === null) return channelEvidence(evaluation, kept, item, inverted);
  const runs = await store.runs.list({ evaluation: evaluation.id });
  const run = runs.filter((r) => r.agent_id === item.agent_id).sort((a, b) => a.trial - b.trial)[0];
  const agent = kept?.transcript.agents.find((a) => a.id === item.agent_id);
  const persona = agent?.persona ?? (await store.agents.get(item.agent_id))?.persona;
  if (!run) return { speaker: agent?.name ?? item.agent_id, persona, inverted };
  const evidence = await runEvidence(store, run, item.rows.slice(0, 1));
  const message = item.message_id !== null ? evidence.messages.get(item.message_id) : undefined;
  const facts = evidence.propositions.get(propositionKey(item.dimension, item.proposition_id));
  return {
    speaker: evidence.agentName,
    persona,
    ...(message
      ? {
          message: {
            id: message.id,
            channel: message.channel,
            ...(message.recipient !== undefined ? { recipient: message.recipient } : {}),
            text: message.text,
          },
        }
      : {}),
    ...(facts ? { claim: facts.claim } : {}),
    inverted: facts?.inverted ?? inverted,
    window: evidence.windows.get(windowKey(item.rows[0]!)),
  };
}

/** A channel item's claim and the window the judge read of the channel (no run: environment verdicts have none). */
function channelEvidence(
  evaluation: EvaluationRow,
  kept: StoredPersonaInput | undefined,
  item: LabellingItem,
  inverted: boolean,
): ItemEvidence {
  if (!kept || !isPersonaDimension(item.dimension)) return { inverted };
  const set = propositionSetFor(kept.propositions, item.dimension, undefined);
  const proposition = set?.propositions.find((p) => p.id === item.proposition_id);
  const evidence: ItemEvidence = {
    inverted: proposition?.inverted ?? inverted,
    ...(proposition ? { claim: proposition.claim } : {}),
  };
  const config = PersonaRunConfigSchema.safeParse(evaluation.config);
  if (!config.success) return evidence;
  try {
    for (const call of planFor({ ...kept, config: config.data }).calls()) {
      const meta = call.meta[0];
      if (meta?.dimension !== item.dimension || meta.channel !== item.channel || meta.agentId) continue;
      const { trajectory } = call.context();
      return { ...evidence, window: { title: trajectory.title, text: trajectory.text } };
    }
  } catch {
    // Planned by another version: the item shows without its window.
  }
  return evidence;
}
