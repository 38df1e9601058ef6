// Checks human labels against what is calibrated (the transcript and the propositions the judge uses) and
// groups them into items: one item per (dimension, proposition, agent, message or channel), each with the
// raw 0–9 score of every rater, ready to set beside the judge's verdict on the same key.

// The typo helper is not (yet) exported by core's index; switch to it there once it is.
import {
  compareCodeUnits,
  InputError,
  isPersonaDimension,
  nearestName,
  type PersonaDimension,
  type Proposition,
  type Transcript,
  type VerdictKey,
} from "../core/index.ts";
import { type LoadedPropositions, propositionSetFor } from "../propositions/index.ts";
import { rawLabelScore } from "./labels.ts";
import type { LabelSet, LabelSource, SourcedLabel } from "./read-labels.ts";

/** One rater's score of an item. */
export interface LabelRating {
  /** The label's `rater`, or `<file>:<line>` for a label without one (see {@link labelItems}). */
  rater: string;
  /** The raw claim score 0–9: the label's score, or its verdict mapped through the proposition. */
  score: number;
  note?: string;
  source: LabelSource;
}

/** A labelled item: the key the judge's verdict has (trial aside), and what the people said of it. */
export interface LabelItem {
  dimension: PersonaDimension;
  proposition_id: string;
  /** The agent of a message or agent item (a message's sender); absent for a channel item. */
  agent_id?: string;
  /** The message of a message item (adherence, consistency). */
  message_id?: string;
  /** The channel of a channel item (convergence). */
  channel?: string;
  /** Whether the proposition is inverted; the raters' and the judge's scores are raw either way. */
  inverted: boolean;
  /** At least one; sorted by rater. */
  raters: LabelRating[];
}

export interface LabelItemsOptions {
  /** The transcript the labelled messages, agents and channels are in. */
  transcript: Transcript;
  /** The propositions the judge uses (`loadPropositions`), with every labelled dimension loaded. */
  propositions: LoadedPropositions;
}

/** What a dimension's proposition is judged on, as the persona planners plan it. */
type TargetKind = "message" | "agent" | "channel";

/**
 * Adherence and consistency are judged on each of an agent's messages (personas/adherence.ts,
 * consistency.ts); fluency on the agent's whole trajectory; convergence on a whole channel.
 */
function targetKindOf(dimension: PersonaDimension): TargetKind {
  if (dimension === "adherence" || dimension === "consistency") return "message";
  if (dimension === "fluency") return "agent";
  return "channel";
}

const TARGET_WORDS: Record<TargetKind, string> = {
  message: "on each message of an agent; give message_id (agent_id is optional: it is the sender)",
  agent: "on an agent as a whole; give agent_id without message_id",
  channel: "on a whole channel; give channel, without agent_id or message_id",
};

/**
 * Validates every label against the transcript and the propositions and groups them into items, sorted by
 * dimension, proposition, agent, then message or channel (code-unit order, so the same on every machine).
 *
 * A label without `rater` is named after its file and line (`labels.csv:14`): two unnamed labels of one
 * item count as two raters, as they would if two people had left their names off. One rater labelling an
 * item twice is an error naming both places. Any problem is an `InputError` naming the label's file and line.
 */
export function labelItems(set: LabelSet, { transcript, propositions }: LabelItemsOptions): LabelItem[] {
  const context = new TranscriptIndex(transcript);
  const loadedDimensions = dimensionsOf(propositions);
  const items = new Map<string, LabelItem & { placeOfRater: Map<string, LabelSource> }>();

  for (const label of set.labels) {
    const fail = (message: string): never => {
      throw new InputError(message, { file: label.source.file, place: String(label.source.line) });
    };
    const dimension = label.dimension;
    if (!isPersonaDimension(dimension) || !loadedDimensions.includes(dimension))
      fail(
        `unknown dimension "${dimension}"${didYouMean(dimension, loadedDimensions)}; the propositions have ${loadedDimensions.join(", ") || "none"}`,
      );
    const persona = dimension as PersonaDimension;
    if (persona === "ideas_quantity")
      fail("ideas_quantity is a count of ideas, not a 0–9 claim score; it is not calibrated with labels");

    const target = resolveTarget(label, persona, context, fail);
    const propositionSet = propositionSetFor(propositions, persona, target.agent_id);
    if (!propositionSet)
      fail(`no ${persona} propositions for agent "${target.agent_id}" in the propositions the judge uses`);
    const proposition = findProposition(propositionSet!.propositions, label, persona, target.agent_id, fail);

    const rating: LabelRating = {
      rater: label.rater ?? `${label.source.file}:${label.source.line}`,
      score: rawLabelScore(label, proposition.inverted),
      source: label.source,
    };
    if (label.note !== undefined) rating.note = label.note;

    const item: LabelItem = {
      dimension: persona,
      proposition_id: proposition.id,
      ...target,
      inverted: proposition.inverted,
      raters: [],
    };
    const key = itemSortKey(item);
    let entry = items.get(key);
    if (!entry) items.set(key, (entry = { ...item, placeOfRater: new Map() }));
    const earlier = entry.placeOfRater.get(rating.rater);
    if (earlier)
      fail(
        `rater "${rating.rater}" already labelled this item (${describeItem(item)}) at ${earlier.file}:${earlier.line}; one rater labels an item once`,
      );
    entry.placeOfRater.set(rating.rater, rating.source);
    entry.raters.push(rating);
  }

  return [...items.keys()].sort(compareCodeUnits).map((key) => {
    const { placeOfRater: _, ...item } = items.get(key)!;
    item.raters.sort((a, b) => compareCodeUnits(a.rater, b.rater));
    return item;
  });
}

/** The verdict key the judge gives this item on a trial (1 by default). */
export function labelItemKey(item: LabelItem, trial = 1): VerdictKey {
  const key: VerdictKey = { dimension: item.dimension, proposition_id: item.proposition_id, trial };
  if (item.agent_id !== undefined) key.agent_id = item.agent_id;
  if (item.channel !== undefined) key.channel = item.channel;
  if (item.message_id !== undefined) key.message_id = item.message_id;
  return key;
}

/** What an item is about, without its raters: dimension, proposition and target, the fields it has. */
export type LabelTarget = Pick<
  LabelItem,
  "dimension" | "proposition_id" | "agent_id" | "message_id" | "channel"
>;

export function labelTarget(item: LabelItem): LabelTarget {
  return {
    dimension: item.dimension,
    proposition_id: item.proposition_id,
    ...(item.agent_id !== undefined ? { agent_id: item.agent_id } : {}),
    ...(item.message_id !== undefined ? { message_id: item.message_id } : {}),
    ...(item.channel !== undefined ? { channel: item.channel } : {}),
  };
}

type Target = Pick<LabelItem, "agent_id" | "message_id" | "channel">;

function resolveTarget(
  label: SourcedLabel,
  dimension: PersonaDimension,
  context: TranscriptIndex,
  fail: (message: string) => never,
): Target {
  const kind = targetKindOf(dimension);
  const given: TargetKind =
    label.message_id !== undefined ? "message" : label.agent_id !== undefined ? "agent" : "channel";
  if (given !== kind)
    fail(`${dimension} is judged ${TARGET_WORDS[kind]}; this label targets ${describeGiven(label)}`);

  if (kind === "channel") {
    const channel = label.channel!;
    if (!context.channels.has(channel))
      fail(
        `channel "${channel}" is not in the transcript${didYouMean(channel, context.channels)}; it has ${[...context.channels].join(", ")}`,
      );
    return { channel };
  }
  if (kind === "agent") {
    const agentId = label.agent_id!;
    if (!context.agents.has(agentId)) fail(unknownAgent(agentId, context));
    return { agent_id: agentId };
  }
  const messageId = label.message_id!;
  const message = context.messages.get(messageId);
  if (!message)
    fail(`message "${messageId}" is not in the transcript${didYouMean(messageId, context.messages.keys())}`);
  const sender = message!.sender;
  if (!context.agents.has(sender))
    fail(
      `message "${messageId}" was sent by "${sender}", who is not an agent; only agents' messages are judged`,
    );
  if (label.agent_id !== undefined && label.agent_id !== sender) {
    if (!context.agents.has(label.agent_id)) fail(unknownAgent(label.agent_id, context));
    fail(`agent_id "${label.agent_id}" did not send message "${messageId}"; its sender is "${sender}"`);
  }
  if (dimension === "consistency" && context.firstMessageOf.get(sender) === messageId)
    fail(
      `consistency is not judged on "${messageId}": it is ${sender}'s first message, with nothing earlier to be consistent with`,
    );
  return { agent_id: sender, message_id: messageId };
}

function describeGiven(label: SourcedLabel): string {
  if (label.message_id !== undefined) return `message "${label.message_id}"`;
  if (label.agent_id !== undefined) return `agent "${label.agent_id}" as a whole`;
  return `channel "${label.channel}"`;
}

function unknownAgent(agentId: string, context: TranscriptIndex): string {
  return `agent "${agentId}" is not in the transcript${didYouMean(agentId, context.agents)}; its agents are ${[...context.agents].join(", ")}`;
}

function findProposition(
  propositions: readonly Proposition[],
  label: SourcedLabel,
  dimension: PersonaDimension,
  agentId: string | undefined,
  fail: (message: string) => never,
): Proposition {
  const found = propositions.find((p) => p.id === label.proposition_id);
  if (found) return found;
  const ids = propositions.map((p) => p.id);
  const scope = agentId !== undefined ? ` for ${agentId}` : "";
  return fail(
    `unknown proposition id "${label.proposition_id}"${didYouMean(label.proposition_id, ids)}; the ${dimension} propositions${scope} are ${ids.join(", ")}`,
  );
}

/** Agents, messages and channels of a transcript, looked up once per label. */
class TranscriptIndex {
  readonly agents: Set<string>;
  readonly messages: Map<string, Transcript["messages"][number]>;
  readonly channels: Set<string>;
  readonly firstMessageOf = new Map<string, string>();

  constructor(transcript: Transcript) {
    this.agents = new Set(transcript.agents.map((a) => a.id));
    this.messages = new Map(transcript.messages.map((m) => [m.id, m]));
    this.channels = new Set([
      ...(transcript.channels ?? []).map((c) => c.id),
      ...transcript.messages.map((m) => m.channel),
    ]);
    // Messages are in time order (as parsed), so the first one seen of each sender is its first action.
    for (const m of transcript.messages)
      if (!this.firstMessageOf.has(m.sender)) this.firstMessageOf.set(m.sender, m.id);
  }
}

function dimensionsOf(propositions: LoadedPropositions): PersonaDimension[] {
  const out = new Set<PersonaDimension>(propositions.sets.environment.keys());
  for (const sets of propositions.sets.agent.values())
    for (const dimension of sets.keys()) out.add(dimension);
  return [...out].sort(compareCodeUnits);
}

function itemSortKey(
  item: Pick<LabelItem, "dimension" | "proposition_id" | "agent_id" | "message_id" | "channel">,
): string {
  return [
    item.dimension,
    item.proposition_id,
    item.agent_id ?? "",
    item.message_id ?? item.channel ?? "",
  ].join("\u0000");
}

function describeItem(item: Target & { dimension: string; proposition_id: string }): string {
  const target =
    item.message_id ?? (item.agent_id !== undefined ? `agent ${item.agent_id}` : `channel ${item.channel}`);
  return `${item.dimension}/${item.proposition_id} on ${target}`;
}

function didYouMean(name: string, known: Iterable<string>): string {
  const near = nearestName(name, known);
  return near ? ` (did you mean "${near}"?)` : "";
}
