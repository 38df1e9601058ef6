// Imported sessions as a persona transcript (`dramaturg.transcript/v1`): what `eval` judges of a trace export, an
// Inspect log or a chat log. Each session is a channel (an episode), each agent with a persona (its system prompt
// or instructions, as the importer kept it in the agent's description) an agent of the transcript, the user's
// words and each agent's visible replies its messages, in order. Ids come from the sessions' own (trace and
// observation ids where the source gave them), so importing the same file again gives the same transcript.
import { basename } from "node:path";
import {
  type Agent,
  InputError,
  type Message,
  type Persona,
  parseTranscriptValue,
  sourceTraceOf,
  TRANSCRIPT_FORMAT,
  type Transcript,
} from "../core/index.ts";
import { type AnalyzeSessionOptions, readSessionFile } from "./analyze.ts";
import type { Session } from "./session-format.ts";

/** When the source records no times (the session format keeps none): one second apart from this instant. */
const SEQUENCE_START = Date.UTC(2000, 0, 1);

export interface SessionsTranscriptOptions {
  /** Personas given apart, by agent id: they win over what the source recorded, and let in an agent it gave none. */
  personas?: Readonly<Record<string, Persona>>;
}

export interface SessionsTranscript {
  transcript: Transcript;
  /** Agent ids left out: the source records no system prompt or instructions for them. */
  leftOut: string[];
  /** What the conversion could not carry over, said rather than guessed. */
  notes: string[];
}

/** The persona the source gives an agent: its role and description (an importer's system prompt), or none. */
function personaOf(agent: Session["agents"][number]): string | undefined {
  const text = [agent.role ? `Role: ${agent.role}` : "", agent.description?.trim() ?? ""]
    .filter(Boolean)
    .join("\n");
  return text || undefined;
}

/** What a session, turn or interaction keeps of where it came from: its `source_ids`, and its trace ref. */
type Sourced = Pick<Session, "source_ids" | "trace">;

/**
 * The ids one level keeps: its `source_ids`, and the trace, span and session of its metadata (an OTLP import's,
 * which keeps no `source_ids`) as `otlp_trace_id`, `otlp_span_id` and `otlp_session_id`.
 */
function ownSourceIds({ source_ids: ids = {}, trace }: Sourced): Record<string, string> {
  const named = sourceTraceOf(ids);
  const fromMetadata: Record<string, string> = {};
  for (const key of ["session_id", "trace_id", "span_id"] as const) {
    const id = trace?.[key];
    if (id !== undefined && named?.[key] !== id) fromMetadata[`otlp_${key}`] = id;
  }
  return { ...fromMetadata, ...ids };
}

/**
 * A message's `source_ids`: its session's, its turn's and (for an agent's reply) its interaction's, the nearer
 * winning a key they share, so an agent's reply names the session, trace and observation it came from.
 */
function messageSourceIds(session: Sourced, turn: Sourced, interaction?: Sourced): Record<string, string> {
  return {
    ...ownSourceIds(session),
    ...ownSourceIds(turn),
    ...(interaction ? ownSourceIds(interaction) : {}),
  };
}

/** A key not yet in `used`: the key itself, else with `#2`, `#3`… appended; then kept as used. */
function unique(key: string, used: Set<string>): string {
  let out = key;
  for (let n = 2; used.has(out); n++) out = `${key}#${n}`;
  used.add(out);
  return out;
}

/**
 * The transcript of sessions read from files (each with the file it came from, for names and messages). Every
 * agent whose session records a persona is a transcript agent; an agent without one is left out (its words stay,
 * sent as `agent:ID`, as what the others heard), a session with none at all is left out, and when no agent has
 * one this throws an InputError naming the files. Times are a sequence one second apart (the session format
 * records none), so `--window-start`/`--window-end` do not apply to them. Message ids are made of the sources' ids,
 * and each message keeps them as its `source_ids` ({@link messageSourceIds}), so its scores can be sent back there.
 */
export function sessionsTranscript(
  sources: readonly { file: string; sessions: readonly Session[] }[],
  { personas = {} }: SessionsTranscriptOptions = {},
): SessionsTranscript {
  // Each agent's persona: given apart, else the first session that records one; an agent is one across sessions.
  const agents = new Map<string, { agent: Agent; session: string }>();
  const leftOut = new Set<string>();
  const notes: string[] = [];
  const named = sources.flatMap(({ file, sessions }) =>
    sessions.map((session, n) => ({ session, name: session.id ?? `${basename(file)}#${n + 1}` })),
  );
  for (const { session, name } of named)
    for (const a of session.agents) {
      const persona = personas[a.id] ?? personaOf(a);
      const seen = agents.get(a.id);
      if (persona === undefined) leftOut.add(a.id);
      else if (!seen) agents.set(a.id, { agent: { id: a.id, name: a.name ?? a.id, persona }, session: name });
      else if (personas[a.id] === undefined && JSON.stringify(seen.agent.persona) !== JSON.stringify(persona))
        notes.push(
          `${a.id}: its instructions differ between sessions; its persona is the first, from ${seen.session}`,
        );
    }
  const channels: NonNullable<Transcript["channels"]> = [];
  const messages: Message[] = [];
  const channelIds = new Set<string>();
  for (const { session, name } of named) {
    const members = session.agents.map((a) => a.id).filter((id) => agents.has(id));
    if (members.length === 0) {
      notes.push(`${name}: no agent of this session has a persona; left out`);
      continue;
    }
    const channel = unique(name, channelIds);
    channels.push({ id: channel, members });
    const ids = new Set<string>();
    const say = (key: string, sender: string, text: string, sourceIds: Record<string, string>) => {
      if (!text.trim()) return;
      const at = new Date(SEQUENCE_START + messages.length * 1000).toISOString();
      messages.push({
        id: unique(`${channel}/${key}`, ids),
        sender,
        channel,
        text,
        at,
        ...(Object.keys(sourceIds).length > 0 ? { source_ids: sourceIds } : {}),
      });
    };
    for (const turn of session.turns) {
      const turnKey = Object.values(turn.source_ids ?? {})[0] ?? `turn-${turn.turn_index}`;
      say(`${turnKey}/user`, "user", turn.user_message, messageSourceIds(session, turn));
      turn.agent_interactions.forEach((x, i) => {
        const own = Object.values(x.source_ids ?? {}).find((id) => id !== turnKey);
        const sender = agents.has(x.agent_id) ? x.agent_id : `agent:${x.agent_id}`;
        say(
          `${turnKey}/${own ?? `reply-${i + 1}`}`,
          sender,
          x.output ?? "",
          messageSourceIds(session, turn, x),
        );
      });
    }
  }
  const files = sources.map((s) => s.file).join(", ");
  const without = [...leftOut].filter((id) => !agents.has(id)).sort();
  notes.unshift(
    ...without.map(
      (id) => `${id}: no system prompt or instructions recorded, so no persona; left out of the evaluation`,
    ),
  );
  if (agents.size === 0)
    throw new InputError(
      `no agent has a persona to be judged against: ${without.join(", ")} ${without.length === 1 ? "has" : "have"} no system prompt or instructions recorded; write the sessions as a ${TRANSCRIPT_FORMAT} file with each agent's persona (dramaturg session analyze reads them as they are)`,
      { file: files },
    );
  const transcript = parseTranscriptValue(
    {
      format: TRANSCRIPT_FORMAT,
      agents: [...agents.values()].map((a) => a.agent),
      channels,
      messages,
    },
    files,
  );
  return { transcript, leftOut: without, notes };
}

/** Per file: the importer that read it, its sessions, and what it could not map. */
export interface SessionsTranscriptSource {
  file: string;
  from: string;
  sessions: number;
  notes: string[];
}

/**
 * Reads files of sessions (any format an importer knows, or the one `from` names) and returns them as one
 * transcript ({@link sessionsTranscript}), with what each file was read as. Bad input is an InputError naming the
 * file and place.
 */
export function readSessionsTranscript(
  files: readonly string[],
  options: Pick<AnalyzeSessionOptions, "from"> & SessionsTranscriptOptions = {},
): SessionsTranscript & { sources: SessionsTranscriptSource[] } {
  const read = files.map((file) => ({ file, imported: readSessionFile(file, { from: options.from }) }));
  const converted = sessionsTranscript(
    read.map(({ file, imported }) => ({ file, sessions: imported.sessions })),
    options,
  );
  return {
    ...converted,
    sources: read.map(({ file, imported }) => ({
      file,
      from: imported.from,
      sessions: imported.sessions.length,
      notes: imported.notes,
    })),
  };
}
