// Reads a stored evaluation's scores for export, whatever its kind: the kind registry loads its document (as
// `show` does), a reader per kind names its scores, and any other kind exports its stored verdicts. Trace, span
// and session ids come from the evaluated input: a session's metadata and source ids, a transcript message's
// `source_ids` (persona-sources.ts), where the importers keep them.
import { compareCodeUnits, InputError } from "../core/index.ts";
import type { StoredKind } from "../engine/index.ts";
import { storedKinds } from "../kinds/index.ts";
import type { DriftResult, RedteamResult } from "../redteam/index.ts";
import type { Store } from "../store/index.ts";
import type { ExportScore, ScoreAttachment } from "./export-score.ts";
import { judgedSources, personaPlacement, type SourcedMessage, storedMessages } from "./persona-sources.ts";
import { driftScores, redteamScores } from "./redteam-scores.ts";
import { NINE, ONE, type Read, score } from "./score-of.ts";

/** A stored evaluation's scores, ready for any exporter. */
export interface StoredScores {
  evaluationId: string;
  kind: string;
  scores: ExportScore[];
  /** Where the evaluated messages came from (`otlp`, `langfuse`, `phoenix`), when they said so. */
  source?: string;
}

export interface StoredScoresOptions {
  /** Also one score per proposition (persona) or judged metric verdict, beside the dimension scores. */
  propositions?: boolean;
}

type Metadata = Record<string, unknown> | undefined;

/** Finds the stored evaluation an id (or its first 8+ characters) names, of any kind, and reads its scores. */
export async function readStoredScores(
  store: Store,
  id: string,
  options: StoredScoresOptions = {},
): Promise<StoredScores> {
  const kinds = storedKinds();
  let found: { kind: StoredKind; document: unknown } | undefined;
  for (const [i, kind] of kinds.entries()) {
    const last = i === kinds.length - 1;
    const document = await kind.load(store, id).catch((error) => {
      if (!last && InputError.isInstance(error)) return undefined;
      throw error;
    });
    if (document !== undefined) {
      found = { kind, document };
      break;
    }
  }
  const { kind, document } = found!;
  // Most documents name their evaluation; a conversation's is found by the id (or its first characters).
  const evaluationId =
    (document as { evaluation_id?: string }).evaluation_id ??
    (await store.evaluations.list({ kind: kind.kind, status: "completed", limit: 500 })).find((e) =>
      e.id.startsWith(id),
    )?.id;
  if (!evaluationId) throw new InputError(`${kind.noun} ${id} has no stored evaluation to export`);
  return scoresOfDocument(store, { kind: kind.kind, evaluationId, document }, options);
}

/**
 * The scores of a stored document already loaded (its kind's `load`), of evaluation `evaluationId`: its
 * verdicts and input are read here, the document is not loaded again.
 */
export async function scoresOfDocument(
  store: Store,
  { kind, evaluationId, document }: { kind: string; evaluationId: string; document: unknown },
  options: StoredScoresOptions = {},
): Promise<StoredScores> {
  const rows = await store.scores.forEvaluation(evaluationId);
  const input = await store.evaluations.input(evaluationId);
  const read = { evaluationId, rows, propositions: options.propositions === true };
  switch (kind) {
    case "persona":
      return personaScores(document as PersonaDocument, storedMessages(input), read);
    case "session":
      return sessionScores(document as SessionsDocument, input as SessionsInput | undefined, read);
    case "conversation":
      return { evaluationId, kind, scores: conversationScores(document as ConversationDocument, read) };
    case "redteam":
      return { evaluationId, kind, scores: redteamScores(document as RedteamResult, read) };
    case "drift":
      return { evaluationId, kind, scores: driftScores(document as DriftResult, read) };
    default:
      return { evaluationId, kind, scores: verdictScores(kind, read) };
  }
}

// --- persona -------------------------------------------------------------------------------------------

interface PersonaDocument {
  runs: {
    agent_id: string;
    dimensions: Record<
      string,
      {
        score: number | null;
        propositions?: { id: string; score: number | null; reasoning?: string[] }[];
      }
    >;
  }[];
}

/** How many of the traces an agent's messages span its scores name, when they go on none of them. */
const NAMED_TRACES = 10;

function personaScores(
  document: PersonaDocument,
  messages: readonly SourcedMessage[],
  read: Read,
): StoredScores {
  const out: ExportScore[] = [];
  let source: string | undefined;
  for (const run of document.runs ?? []) {
    // Each agent's scores on the session or trace its judged messages came from (persona-sources.ts).
    const placed = personaPlacement(judgedSources(messages, run.agent_id, read.rows));
    source ??= placed.source;
    const attach = placed.attach;
    const from = placed.source ? { source: placed.source } : {};
    const spanned: Record<string, string | number> =
      !attach.sessionId && !attach.traceId && placed.traces.length > 1
        ? {
            source_traces: placed.traces.length,
            source_trace_ids: placed.traces.slice(0, NAMED_TRACES).join(" "),
          }
        : {};
    for (const [dimension, result] of Object.entries(run.dimensions ?? {})) {
      if (result.score === null || result.score === undefined) continue;
      const count = dimension === "ideas_quantity";
      const propositions = result.propositions ?? [];
      out.push(
        score(read, `persona|${run.agent_id}|${dimension}`, {
          name: dimension,
          level: "dimension",
          value: result.score,
          scale: count ? { min: 0 } : NINE,
          comment: propositions
            .filter((p) => p.score !== null)
            .map((p) => `${p.id} ${round(p.score!)}: ${p.reasoning?.[0] ?? ""}`.trim())
            .join("\n"),
          attach,
          ...from,
          metadata: { agent_id: run.agent_id, kind: "persona", ...spanned },
        }),
      );
      if (!read.propositions) continue;
      for (const p of propositions) {
        if (p.score === null || p.score === undefined) continue;
        out.push(
          score(read, `persona|${run.agent_id}|${dimension}|${p.id}`, {
            name: `${dimension}.${p.id}`,
            level: "proposition",
            value: p.score,
            scale: count ? { min: 0 } : NINE,
            comment: (p.reasoning ?? []).join("\n"),
            attach,
            ...from,
            metadata: { agent_id: run.agent_id, kind: "persona", dimension, proposition: p.id, ...spanned },
          }),
        );
      }
    }
  }
  return { evaluationId: read.evaluationId, kind: "persona", scores: out, ...(source ? { source } : {}) };
}

const round = (n: number) => Math.round(n * 100) / 100;

// --- session -------------------------------------------------------------------------------------------

interface SessionAnalysisDocument {
  session_id: string | null;
  overall_score: number | null;
  coordination_score: number | null;
  intent_drift_score: number | null;
  task_completion: boolean | null;
  per_agent_scores: Record<string, Record<string, unknown>>;
  turn_results: { turn_index: number; interactions: { agent_id: string; score: number | null }[] }[];
}

interface SessionsDocument {
  analyses: SessionAnalysisDocument[];
}

/** The stored input's sessions, with the trace ids the importers kept (sessions' TraceRef). */
interface SessionsInput {
  sessions?: {
    id?: string;
    trace?: Metadata;
    turns?: { trace?: Metadata; agent_interactions?: { trace?: Metadata }[] }[];
  }[];
}

const SESSION_METRICS = ["overall_score", "coordination_score", "intent_drift_score"] as const;
const AGENT_METRICS = ["overall", "tool_use", "reasoning", "handoff", "response_quality"] as const;

const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);

function sessionScores(
  document: SessionsDocument,
  input: SessionsInput | undefined,
  read: Read,
): StoredScores {
  const out: ExportScore[] = [];
  let source: string | undefined;
  for (const [n, analysis] of (document.analyses ?? []).entries()) {
    const sid = analysis.session_id ?? `#${n}`;
    const session = input?.sessions?.find((s) => s.id === analysis.session_id) ?? input?.sessions?.[n];
    const sessionSource = text(session?.trace?.source);
    source ??= sessionSource;
    const from = sessionSource ? { source: sessionSource } : {};
    const traces = new Set(
      (session?.turns ?? []).map((t) => text(t.trace?.trace_id)).filter((t) => t !== undefined),
    );
    const sessionId = text(session?.trace?.session_id);
    const sessionAttach: ScoreAttachment = {
      ...(sessionId ? { sessionId } : {}),
      ...(traces.size === 1 ? { traceId: [...traces][0] } : {}),
    };
    const reasoning = (metric: string, agent?: string) =>
      read.rows
        .filter(
          (r) =>
            r.proposition_id === metric &&
            r.status === "ok" &&
            (agent === undefined || r.agent_id === agent) &&
            r.reasoning,
        )
        .map((r) => r.reasoning)
        .join("\n");
    const meta = { kind: "session", session_id: sid };
    for (const metric of SESSION_METRICS) {
      const value = analysis[metric];
      if (typeof value !== "number") continue;
      out.push(
        score(read, `session|${sid}|${metric}`, {
          name: metric,
          level: "dimension",
          value,
          scale: ONE,
          comment: reasoning(metric.replace(/_score$/, "")),
          attach: sessionAttach,
          ...from,
          metadata: meta,
        }),
      );
    }
    if (typeof analysis.task_completion === "boolean")
      out.push(
        score(read, `session|${sid}|task_completion`, {
          name: "task_completion",
          level: "dimension",
          value: analysis.task_completion ? 1 : 0,
          scale: ONE,
          comment: reasoning("task_completion"),
          attach: sessionAttach,
          ...from,
          metadata: meta,
        }),
      );
    for (const [agent, scores] of Object.entries(analysis.per_agent_scores ?? {}).sort(([a], [b]) =>
      compareCodeUnits(a, b),
    )) {
      for (const metric of AGENT_METRICS) {
        const value = scores[metric];
        if (typeof value !== "number") continue;
        out.push(
          score(read, `session|${sid}|${agent}|${metric}`, {
            name: `agent_${metric}`,
            level: "dimension",
            value,
            scale: ONE,
            comment: reasoning(metric, agent),
            attach: sessionAttach,
            ...from,
            metadata: { ...meta, agent_id: agent },
          }),
        );
      }
    }
    // Each judged interaction on its own span, when the trace gave one.
    if (!read.propositions && traces.size === 0) continue;
    for (const turn of analysis.turn_results ?? []) {
      const turnInput = session?.turns?.[turn.turn_index];
      for (const [i, interaction] of turn.interactions.entries()) {
        if (typeof interaction.score !== "number") continue;
        const meta2 = turnInput?.agent_interactions?.[i]?.trace;
        const spanId = text(meta2?.span_id);
        const traceId = text(meta2?.trace_id) ?? text(turnInput?.trace?.trace_id);
        if (!read.propositions && !spanId) continue;
        out.push(
          score(read, `session|${sid}|turn ${turn.turn_index}|${i}|interaction`, {
            name: "interaction",
            level: "proposition",
            value: interaction.score,
            scale: ONE,
            attach: { ...sessionAttach, ...(traceId ? { traceId } : {}), ...(spanId ? { spanId } : {}) },
            ...from,
            metadata: { ...meta, agent_id: interaction.agent_id, turn: turn.turn_index },
          }),
        );
      }
    }
  }
  return { evaluationId: read.evaluationId, kind: "session", scores: out, ...(source ? { source } : {}) };
}

// --- conversation --------------------------------------------------------------------------------------

interface ConversationDocument {
  passes?: {
    pass: string;
    tone?: number | null;
    tasks?: { task: string; score: number | null; reasoning?: string }[];
    composite?: { score: number | null };
  }[];
}

function conversationScores(document: ConversationDocument, read: Read): ExportScore[] {
  const out: ExportScore[] = [];
  for (const pass of document.passes ?? []) {
    const meta = { kind: "conversation", pass: pass.pass };
    const tasks = pass.tasks ?? [];
    if (typeof pass.composite?.score === "number")
      out.push(
        score(read, `conversation|${pass.pass}|composite`, {
          name: "composite",
          level: "dimension",
          value: pass.composite.score,
          scale: ONE,
          comment: tasks.map((t) => `${t.task}: ${t.reasoning ?? ""}`.trim()).join("\n"),
          attach: {},
          metadata: meta,
        }),
      );
    if (typeof pass.tone === "number")
      out.push(
        score(read, `conversation|${pass.pass}|tone`, {
          name: "tone",
          level: "dimension",
          value: pass.tone,
          scale: ONE,
          attach: {},
          metadata: meta,
        }),
      );
    if (!read.propositions) continue;
    for (const [i, t] of tasks.entries()) {
      if (typeof t.score !== "number") continue;
      out.push(
        score(read, `conversation|${pass.pass}|task ${i}`, {
          name: "task",
          level: "proposition",
          value: t.score,
          scale: ONE,
          comment: t.reasoning,
          attach: {},
          metadata: { ...meta, task: t.task },
        }),
      );
    }
  }
  return out;
}

// --- any other kind: its stored verdicts ---------------------------------------------------------------

function verdictScores(kind: string, read: Read): ExportScore[] {
  const rows = read.rows
    .filter((r) => r.status === "ok" && typeof r.score === "number")
    .sort((a, b) => compareCodeUnits(a.verdict_key, b.verdict_key));
  if (rows.length === 0)
    throw new InputError(`the ${kind} evaluation ${read.evaluationId.slice(0, 8)} has no scores to export`);
  return rows.map((r) =>
    score(read, `${kind}|${r.verdict_key}`, {
      name: `${r.dimension}.${r.proposition_id}`,
      level: "proposition",
      value: r.score!,
      scale: NINE,
      comment: r.reasoning,
      attach: {},
      metadata: { kind, ...(r.agent_id ? { agent_id: r.agent_id } : {}) },
    }),
  );
}
