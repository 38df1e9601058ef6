// Trajectories: what one agent did and perceived, or what happened in one channel, as TinyTroupe
// renders them (`Name acts: [TALK] …`, `--> Name: [CONVERSATION] Sender: …`), with windowing.
import type { Agent, Message, Transcript } from "./transcript.ts";

export interface TrajectoryEvent {
  kind: "action" | "stimulus";
  message: Message;
  /** Display name of the message's sender (agent name, or the raw sender for non-agents). */
  senderName: string;
}

export interface Window {
  first_n: number;
  last_n: number;
}

/** Channels an agent is in: listed as a member, or it posted there. */
export function agentChannels(transcript: Transcript, agentId: string): Set<string> {
  const channels = new Set<string>();
  for (const c of transcript.channels ?? []) if (c.members?.includes(agentId)) channels.add(c.id);
  for (const m of transcript.messages)
    if (m.sender === agentId && m.recipient === undefined) channels.add(m.channel);
  return channels;
}

/** Display name of a sender id. */
export function senderName(transcript: Transcript, sender: string): string {
  return transcript.agents.find((a) => a.id === sender)?.name ?? sender;
}

/**
 * An agent's trajectory: its own messages are actions; other messages in its channels, and DMs
 * addressed to it, are stimuli. In time order.
 */
export function agentTrajectory(transcript: Transcript, agentId: string): TrajectoryEvent[] {
  const channels = agentChannels(transcript, agentId);
  const names = new Map(transcript.agents.map((a) => [a.id, a.name]));
  const events: TrajectoryEvent[] = [];
  for (const m of transcript.messages) {
    const name = names.get(m.sender) ?? m.sender;
    if (m.sender === agentId) events.push({ kind: "action", message: m, senderName: name });
    else if (m.recipient !== undefined ? m.recipient === agentId : channels.has(m.channel))
      events.push({ kind: "stimulus", message: m, senderName: name });
  }
  return events;
}

/** Every message of one channel, in time order; agents' messages are actions. */
export function channelTrajectory(transcript: Transcript, channel: string): TrajectoryEvent[] {
  const agentIds = new Set(transcript.agents.map((a) => a.id));
  const names = new Map(transcript.agents.map((a) => [a.id, a.name]));
  return transcript.messages
    .filter((m) => m.channel === channel)
    .map((m) => ({
      kind: agentIds.has(m.sender) ? ("action" as const) : ("stimulus" as const),
      message: m,
      senderName: names.get(m.sender) ?? m.sender,
    }));
}

/** All channels of a transcript in order of first message (a DM is a channel). */
export function transcriptChannels(transcript: Transcript): string[] {
  const seen = new Set<string>();
  for (const m of transcript.messages) seen.add(m.channel);
  return [...seen];
}

/**
 * Keeps the first `first_n` and last `last_n` events and reports how many were left out between them.
 * Unlike TinyTroupe, a short trajectory is not duplicated when `first_n + last_n` exceeds its length.
 */
export function windowEvents<T>(
  events: readonly T[],
  { first_n, last_n }: Window,
): { head: T[]; omitted: number; tail: T[] } {
  if (events.length <= first_n + last_n) return { head: [...events], omitted: 0, tail: [] };
  return {
    head: events.slice(0, first_n),
    omitted: events.length - first_n - last_n,
    tail: last_n > 0 ? events.slice(events.length - last_n) : [],
  };
}

const TAG_LIKE =
  /<\s*(\/?)\s*(trajectory|persona|evidence|claim|message|propositions|data|conversation|tasks|facts)\b/gi;

/**
 * Neutralises text that could close or open one of the prompt's data delimiters, so an agent's
 * message can never break out of the block it is quoted in.
 */
export function escapeDelimiters(text: string): string {
  return text.replace(TAG_LIKE, (_m, slash: string, tag: string) => `‹${slash}${tag}`);
}

/** One event as text: `Marta acts: [TALK] …` or `--> Marta: [CONVERSATION] Bob: …`. */
export function formatEvent(
  event: TrajectoryEvent,
  viewpoint: { name: string } | { channel: string },
): string {
  const text = escapeDelimiters(event.message.text).replace(/\n/g, "\n    ");
  if (event.kind === "action") return `${event.senderName} acts: [TALK] ${text}`;
  const to = "name" in viewpoint ? viewpoint.name : `#${viewpoint.channel}`;
  return `--> ${to}: [CONVERSATION] ${event.senderName}: ${text}`;
}

/**
 * A windowed, numbered trajectory as the judge reads it. Events are numbered by their position in the
 * whole trajectory, so the numbers stay meaningful after the window cuts some out.
 */
export function renderTrajectory(
  events: readonly TrajectoryEvent[],
  window: Window,
  viewpoint: { name: string } | { channel: string },
): string {
  return new TrajectoryRenderer(events, viewpoint).render(window);
}

/**
 * Renders windows of the first `end` events of one trajectory, each exactly as {@link renderTrajectory}
 * renders `events.slice(0, end)`. A plan renders one such window per message of an agent (up to that
 * message), and consecutive windows share most of their lines: each event's line is made once, the first
 * time a window needs it, instead of once per window.
 */
export class TrajectoryRenderer {
  private readonly made: (string | undefined)[];
  /** Lines below this index (from the window's first lines on) have been let go (see `release`). */
  private releasedTo = 0;

  constructor(
    private readonly events: readonly TrajectoryEvent[],
    private readonly viewpoint: { name: string } | { channel: string },
  ) {
    this.made = new Array(events.length);
  }

  render(window: Window, end = this.events.length): string {
    return this.lines(window, end).join("\n");
  }

  /** The lines of {@link render}'s text (whose join with "\n" it is); lines shared by windows are one string. */
  lines({ first_n, last_n }: Window, end = this.events.length): string[] {
    if (end === 0) return ["(no events)"];
    // The window of windowEvents, worked out on indices rather than on a copy of the events.
    const lines: string[] = [];
    if (end <= first_n + last_n) {
      for (let i = 0; i < end; i++) lines.push(this.line(i));
    } else {
      for (let i = 0; i < first_n; i++) lines.push(this.line(i));
      lines.push(`(… ${end - first_n - last_n} events omitted …)`);
      for (let i = end - last_n; i < end; i++) lines.push(this.line(i));
      if (last_n > 0) this.release(first_n, end - last_n);
    }
    return lines;
  }

  /**
   * Lets go of the lines between a window's first lines and its last ones: a plan walks an agent's
   * messages in order, so its windows move forward and those lines are not read again — or are made again
   * when they are (another trial walks them anew). A trajectory as long as the run is then not held whole.
   */
  private release(first_n: number, to: number): void {
    // A window behind the last one starts another walk: what it makes again is let go again.
    if (to < this.releasedTo) this.releasedTo = 0;
    for (let i = Math.max(first_n, this.releasedTo); i < to; i++) this.made[i] = undefined;
    this.releasedTo = Math.max(this.releasedTo, to);
  }

  /**
   * The window of the first `end` events without its last event (the message a judge reads in a block of
   * its own, so its line is not repeated), and no lines at all when no event would be left, only a note
   * of those omitted.
   */
  linesBefore(window: Window, end: number): string[] {
    if (end <= 1) return [];
    const lines = this.lines(window, end);
    // The last event is in the window unless the window ends before it (no last_n and too long to show whole).
    const inWindow = window.last_n > 0 || end <= window.first_n + window.last_n;
    if (inWindow) lines.pop();
    return lines.length === 1 && lines[0]!.startsWith("(… ") ? [] : lines;
  }

  private line(index: number): string {
    let line = this.made[index];
    if (line === undefined) {
      const event = this.events[index]!;
      const where = event.message.recipient !== undefined ? "DM" : `#${event.message.channel}`;
      line = `#${index + 1} [${event.message.at} ${where}] ${formatEvent(event, this.viewpoint)}`;
      this.made[index] = line;
    }
    return line;
  }
}

/** The persona as the judge reads it: text as is, objects as indented JSON. */
export function renderPersona(agent: Agent): string {
  const body = typeof agent.persona === "string" ? agent.persona : JSON.stringify(agent.persona, null, 2);
  return escapeDelimiters(body);
}
