// Builds what the judge reads for each kind of target: a message, an agent's history, a channel.
import {
  type Agent,
  escapeDelimiters,
  type Message,
  type PropositionSet,
  renderPersona,
  renderTrajectory,
  type TrajectoryEvent,
  type TrajectoryRenderer,
  type Transcript,
} from "../core/index.ts";
import { type JudgeContext, trajectoryOfLines } from "../judge/index.ts";
import { type ClaimVariables, claimVariables } from "../propositions/index.ts";
import type { Target } from "./planner.ts";

const WHOLE = { first_n: Number.POSITIVE_INFINITY, last_n: 0 };

export function personaBlock(agent: Agent, set: PropositionSet): JudgeContext["persona"] {
  return set.include_personas ? { name: agent.name, text: renderPersona(agent) } : undefined;
}

/** Template variables for a claim about one message (or one agent when `message` is absent). */
export function targetVariables(
  transcript: Transcript,
  { agent, message, channel }: { agent?: Agent; message?: Message; channel?: string },
): ClaimVariables {
  const recipient = message?.recipient;
  return claimVariables({
    agentName: agent?.name,
    action: message ? escapeDelimiters(message.text) : undefined,
    channelName: message?.channel ?? channel,
    recipientName: recipient
      ? (transcript.agents.find((a) => a.id === recipient)?.name ?? recipient)
      : undefined,
  });
}

/** A message-level target (adherence, consistency): one message of the agent, its snippet and variables. */
export function messageTarget(transcript: Transcript, agent: Agent, message: Message): Target {
  return {
    agentId: agent.id,
    messageId: message.id,
    snippet: snippet(message.text),
    variables: targetVariables(transcript, { agent, message }),
  };
}

/**
 * Adherence: the agent's trajectory up to the message, windowed, and the message itself in a block of its
 * own (the window's last line would only repeat it). `trajectory` renders the agent's whole trajectory
 * (from its viewpoint), shared by its messages.
 */
export function messageContext(
  agent: Agent,
  trajectory: TrajectoryRenderer,
  upTo: number,
  message: Message,
  set: PropositionSet,
): JudgeContext {
  return {
    persona: personaBlock(agent, set),
    trajectory: trajectoryOfLines(
      `${agent.name}'s trajectory before the message under evaluation`,
      trajectory.linesBefore(set, upTo + 1),
    ),
    action: { name: agent.name, text: escapeDelimiters(message.text) },
  };
}

/**
 * Consistency: the agent's earlier messages (its own actions only, the first `earlier` of those `actions`
 * renders), windowed, and the new message.
 */
export function historyContext(
  agent: Agent,
  actions: TrajectoryRenderer,
  earlier: number,
  message: Message,
  set: PropositionSet,
): JudgeContext {
  return {
    persona: personaBlock(agent, set),
    trajectory: trajectoryOfLines(`${agent.name}'s earlier messages`, actions.lines(set, earlier)),
    action: { name: agent.name, text: escapeDelimiters(message.text) },
  };
}

/** Fluency: the agent's recent messages with n-gram statistics as evidence. */
export function recentMessagesContext(
  agent: Agent,
  actions: readonly TrajectoryEvent[],
  set: PropositionSet,
  evidence: string,
): JudgeContext {
  return {
    persona: personaBlock(agent, set),
    trajectory: {
      title: `${agent.name}'s messages`,
      text: renderTrajectory(actions, set, { name: agent.name }),
    },
    evidence,
  };
}

/** Convergence and ideas: the channel's whole trajectory, with vocabulary statistics as evidence. */
export function channelContext(
  transcript: Transcript,
  channel: string,
  events: readonly TrajectoryEvent[],
  set: PropositionSet,
  evidence?: string,
): JudgeContext {
  const speakers = new Set(events.filter((e) => e.kind === "action").map((e) => e.message.sender));
  const personas = set.include_personas
    ? transcript.agents
        .filter((a) => speakers.has(a.id))
        .map((a) => `## ${a.name}\n${renderPersona(a)}`)
        .join("\n\n")
    : undefined;
  return {
    persona: personas ? { name: `participants of #${channel}`, text: personas } : undefined,
    trajectory: {
      title: `the whole conversation in #${channel}`,
      text: renderTrajectory(events, WHOLE, { channel }),
    },
    evidence,
  };
}

/** Whitespace that collapsing would change: a run of two or more, or any but a plain space. */
const UNCOLLAPSED = /\s\s|[^\S ]/;

/** The text on one line (whitespace runs as one space), cut to `max` characters with an ellipsis. */
export function snippet(text: string, max = 160): string {
  // Most messages have nothing to collapse; testing first skips building a copy (≈ 1.5 → 0.3 µs a message).
  const flat = (UNCOLLAPSED.test(text) ? text.replace(/\s+/g, " ") : text).trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
