// Plans a persona evaluation: every judge call it needs, before any is made. The same plan serves a
// run, a resume (skip the verdicts already stored), a dry run (count and estimate) and a cache lookup.
// The calls are produced afresh on each pass over the plan and build their contexts only when sent, so a
// plan costs its agents, channels and evidence, not an object per verdict.
import {
  AGENT_DIMENSIONS,
  agentChannels,
  InputError,
  type Message,
  type PersonaDimension,
  sampleInOrder,
  type Transcript,
  transcriptChannels,
} from "../core/index.ts";
import { planAdherence } from "./adherence.ts";
import { planConsistency } from "./consistency.ts";
import { planConvergence, planIdeasQuantity, vocabularyEvidence } from "./environment.ts";
import { fluencyEvidence, planFluency } from "./fluency.ts";
import type { PropositionLookup } from "./plan-input.ts";
import type { PlanEntry, PlanShape } from "./planner.ts";
import type { AgentScope, EvaluationPlan, PlannedCall, PlannedTrivial } from "./types.ts";

export interface PlanOptions {
  transcript: Transcript;
  propositions: PropositionLookup;
  /** Dimensions to evaluate (default: all five). */
  dimensions: readonly PersonaDimension[];
  /** Agent ids to evaluate (default: every agent that has messages in the window). */
  agents?: readonly string[];
  /** Only messages at or after this time. */
  windowStart?: Date;
  /** Only messages at or before this time. */
  windowEnd?: Date;
  /** Judge at most this many messages per agent, picked with `seed`. */
  sample?: number;
  seed?: number;
  /** Judge only these of the agents' messages (ids); the rest are context. Applied before `sample`. */
  messages?: readonly string[];
  /** Individual: one proposition per call. Batch: up to 10 per call. */
  mode: "individual" | "batch";
  /** Repeat every judgement this many times (default 1). */
  trials?: number;
}

/** Keeps only the messages inside the time window. */
export function windowTranscript(transcript: Transcript, start?: Date, end?: Date): Transcript {
  if (!start && !end) return transcript;
  const from = start?.getTime() ?? Number.NEGATIVE_INFINITY;
  const to = end?.getTime() ?? Number.POSITIVE_INFINITY;
  return {
    ...transcript,
    messages: transcript.messages.filter((m) => {
      const t = Date.parse(m.at);
      return t >= from && t <= to;
    }),
  };
}

export function planPersonaEvaluation(options: PlanOptions): EvaluationPlan {
  const transcript = windowTranscript(options.transcript, options.windowStart, options.windowEnd);
  const known = new Set(transcript.agents.map((a) => a.id));
  for (const id of options.agents ?? [])
    if (!known.has(id))
      throw new InputError(
        `unknown agent "${id}"; the transcript has ${[...known].map((k) => `"${k}"`).join(", ")}`,
        {
          place: "--agents",
        },
      );
  const messagesBySender = new Map<string, Message[]>();
  for (const m of transcript.messages) {
    let list = messagesBySender.get(m.sender);
    if (!list) messagesBySender.set(m.sender, (list = []));
    list.push(m);
  }
  const selected = options.agents
    ? transcript.agents.filter((a) => options.agents!.includes(a.id))
    : transcript.agents.filter((a) => messagesBySender.has(a.id));
  const targets = options.messages && new Set(options.messages);
  const agents: AgentScope[] = selected.map((agent) => {
    const messages = messagesBySender.get(agent.id) ?? [];
    const chosen = targets ? messages.filter((m) => targets.has(m.id)) : messages;
    const sampled =
      options.sample !== undefined ? sampleInOrder(chosen, options.sample, options.seed ?? 0) : chosen;
    return { agent, messages, sampled };
  });

  // Channels: all of them when no agent filter is given, else the channels the chosen agents are in.
  let channels = transcriptChannels(transcript);
  if (options.agents) {
    const wanted = new Set<string>();
    for (const a of agents) {
      for (const c of agentChannels(transcript, a.agent.id)) wanted.add(c);
      for (const m of transcript.messages)
        if (m.recipient === a.agent.id || (m.sender === a.agent.id && m.recipient)) wanted.add(m.channel);
    }
    channels = channels.filter((c) => wanted.has(c));
  }

  const shape: PlanShape = { mode: options.mode, trials: options.trials ?? 1 };
  const dims = new Set(options.dimensions);
  const lookup = options.propositions;
  const evidence = { fluency: new Map<string, string>(), vocabulary: new Map<string, string>() };
  if (dims.has("fluency"))
    for (const scope of agents) {
      const text = fluencyEvidence(transcript, scope, lookup);
      if (text !== undefined) evidence.fluency.set(scope.agent.id, text);
    }
  if (dims.has("convergence") && lookup("convergence"))
    for (const channel of channels) evidence.vocabulary.set(channel, vocabularyEvidence(transcript, channel));
  // Whether any proposition set in use has a precondition (the sets are resolved, so this is a lookup).
  const sets = [
    ...agents.flatMap((scope) =>
      (["adherence", "consistency", "fluency"] as const)
        .filter((d) => dims.has(d))
        .map((d) => lookup(d, scope.agent.id)),
    ),
    ...(["convergence", "ideas_quantity"] as const).filter((d) => dims.has(d)).map((d) => lookup(d)),
  ];
  const preconditions = sets.some((set) => set?.propositions.some((p) => p.precondition !== undefined));
  const doubleCheckAsked = sets.some((set) => set?.double_check);
  function* entries(): Generator<PlanEntry> {
    for (const scope of agents) {
      if (dims.has("adherence")) yield* planAdherence(shape, transcript, scope, lookup);
      if (dims.has("consistency")) yield* planConsistency(shape, transcript, scope, lookup);
      const fluency = evidence.fluency.get(scope.agent.id);
      if (fluency !== undefined) yield* planFluency(shape, transcript, scope, lookup, fluency);
    }
    for (const channel of channels) {
      const vocabulary = evidence.vocabulary.get(channel);
      if (vocabulary !== undefined) yield* planConvergence(shape, transcript, channel, lookup, vocabulary);
      if (dims.has("ideas_quantity")) yield* planIdeasQuantity(shape, transcript, channel, lookup);
    }
  }
  return {
    transcript,
    dimensions: [...options.dimensions],
    agents,
    channels,
    trials: shape.trials,
    mode: options.mode,
    *calls(): Generator<PlannedCall> {
      for (const entry of entries()) if (entry.call) yield entry.call;
    },
    *trivial(): Generator<PlannedTrivial> {
      // Only a precondition makes a verdict trivial: without one there is no pass to make.
      if (!preconditions) return;
      for (const entry of entries()) if (entry.trivial) yield entry.trivial;
    },
    doubleChecked(): boolean {
      // A set that asks may still have no call (every precondition false): its calls say.
      if (doubleCheckAsked) for (const call of this.calls()) if (call.doubleCheck) return true;
      return false;
    },
    evidence,
  };
}

export { AGENT_DIMENSIONS };
