// Where a persona evaluation's judged messages came from, by the `source_ids` an imported trace left on them: the
// session or trace each agent's scores go back to. A score judges an agent over all its judged messages, so it
// goes where all of them are — their one session, else their one trace — and nowhere when they span several
// traces of no one session: a copy on each trace would count one judgement many times in the tool's averages.
import { compareCodeUnits, type SourceTrace, sourceTraceOf } from "../core/index.ts";
import type { ScoreRow } from "../store/index.ts";
import type { ScoreAttachment } from "./export-score.ts";

/** A message as the evaluation's stored input keeps it: what placing its scores reads. */
export interface SourcedMessage {
  id: string;
  sender: string;
  source_ids?: Record<string, string>;
}

/** The messages of a persona evaluation's stored input (its transcript), or none when it kept none. */
export function storedMessages(input: unknown): SourcedMessage[] {
  const messages = (input as { transcript?: { messages?: unknown } } | undefined)?.transcript?.messages;
  return Array.isArray(messages) ? (messages as SourcedMessage[]) : [];
}

/** Where an agent's judged messages came from, one entry per message (undefined for one with no ids). */
export function judgedSources(
  messages: readonly SourcedMessage[],
  agentId: string,
  rows: readonly Pick<ScoreRow, "agent_id" | "message_id">[],
): (SourceTrace | undefined)[] {
  // The messages its verdicts name; an agent judged only as a whole (no verdict names a message): all it sent.
  const named = new Set(
    rows.filter((r) => r.agent_id === agentId && r.message_id !== null).map((r) => r.message_id!),
  );
  return messages
    .filter((m) => (named.size > 0 ? named.has(m.id) : m.sender === agentId))
    .map((m) => sourceTraceOf(m.source_ids));
}

/** Where an agent's scores go: the attachment, the tool the messages came from, and the traces they span. */
export interface PersonaPlacement {
  attach: ScoreAttachment;
  /** The system every judged message came from (`langfuse`, `otlp`…), when they all name one. */
  source?: string;
  /** The traces the judged messages came from, sorted: several of them when the score is on none. */
  traces: string[];
}

/**
 * Their one session when every judged message names the same; else their one trace when every one names the
 * same; else nothing (the tool's fallback: Langfuse's dataset run), with the traces they span.
 */
export function personaPlacement(sources: readonly (SourceTrace | undefined)[]): PersonaPlacement {
  const all = <K extends keyof SourceTrace>(key: K) => {
    const values = new Set(sources.map((s) => s?.[key]));
    return sources.length > 0 && values.size === 1 && !values.has(undefined) ? [...values][0] : undefined;
  };
  const traces = [...new Set(sources.map((s) => s?.trace_id).filter((t) => t !== undefined))].sort(
    compareCodeUnits,
  );
  const sessionId = all("session_id");
  const traceId = sessionId === undefined ? all("trace_id") : undefined;
  const source = all("source");
  return {
    attach: sessionId ? { sessionId } : traceId ? { traceId } : {},
    ...(source ? { source } : {}),
    traces,
  };
}
