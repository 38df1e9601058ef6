// The judged half of a session analysis, as an evaluation kind on the run engine: one judge call per
// interaction (all its metrics at once), one per turn (correction, re-ask, hallucination, a general check),
// one per session (coordination, intent drift, task completion). Claims are judged 0–9 like every other
// proposition and read as 0–1; a verdict that errored leaves its metric null and is counted, never a pass.
import type { Verdict, VerdictKey } from "../core/index.ts";
import {
  type EvaluationOfKind,
  type JudgePlan,
  type PlannedCall,
  type PlannedVerdict,
  scoreFromVerdict,
} from "../engine/index.ts";
import type { JudgeContext, JudgeDescriptor, JudgeItem } from "../judge/index.ts";
import { wordJaccard } from "../text/index.ts";
import {
  applicableMetrics,
  buildAnalysis,
  type DetectionType,
  type InteractionMetrics,
  type JudgedSession,
  type SessionAnalysis,
  type TurnDetection,
} from "./analysis.ts";
import type { SessionsAnalysis } from "./analyze.ts";
import { type ExpectedCallsFile, matchSessionCalls } from "./expected-calls.ts";
import { passK } from "./formulas.ts";
import type { AgentInteraction, Session, Turn } from "./session-format.ts";
import type { ToolValidation } from "./tool-validation.ts";

/** The format of an analysis's document (`SessionsAnalysis`), which `sessionsResult` builds. */
export const SESSIONS_ANALYSIS_FORMAT = "dramaturg.sessions-analysis/v1";

/** The dimension every session verdict is stored under; the metric is its proposition id. */
export const SESSION_DIMENSION = "session";

type InteractionMetric = keyof InteractionMetrics;
type TurnCheck = "rdm" | "ccm" | "hallucination" | "llm_judge";
type SessionMetric = "coordination" | "intent_drift" | "task_completion";

/** Where a verdict belongs: a session (by position), and its interaction, turn or the session itself. */
export type SessionMeta =
  | { session: number; level: "interaction"; turn: number; interaction: number; metric: InteractionMetric }
  | { session: number; level: "turn"; turn: number; metric: TurnCheck }
  | { session: number; level: "session"; metric: SessionMetric };

/** A score of 0–9 at or above this (5 of 9) makes a yes/no metric (a detection, task completion) yes. */
export const YES_AT = 5;

const INTERACTION_CLAIMS: Record<InteractionMetric, (agent: string) => string> = {
  tool_use: (a) =>
    `${a} picked the tools that the request called for and called each one with correct, complete arguments (the schema check in the evidence names any call that broke its tool's schema).`,
  reasoning: (a) =>
    `${a}'s thoughts form a sound plan: relevant to the request, in a sensible order, and consistent with the tool results it had seen.`,
  handoff: (a) =>
    `When ${a} handed the work to another agent, what it passed along was enough for that agent to do its part without asking again or guessing.`,
  response_quality: (a) =>
    `${a}'s output fits its role and does what was asked of it in this turn, accurately and without padding.`,
};

const TURN_CLAIMS: Record<TurnCheck, string> = {
  rdm: 'The user\'s next message says or implies that the agents\' answer was wrong (a correction such as "that\'s not what I asked", "try again", "no, it\'s …").',
  ccm: "The user's next message asks the same question again, because the agents' answer left it unanswered or incomplete (not a new question).",
  hallucination:
    "The final response states something that the tool results and the known facts of this turn do not support, or contradicts them.",
  llm_judge:
    "The final response is problematic: it misses the user's request, is unhelpful, unsafe, or inconsistent with what the agents did.",
};

const SESSION_CLAIMS: Record<SessionMetric, string> = {
  coordination:
    "The agents worked well together: each kept to its role, none redid or undid another's work, and what one found reached the agents that needed it.",
  intent_drift:
    "Over the session the agents drifted away from what the user asked for, working on things the user did not ask about.",
  task_completion: "By the end of the session, what the user set out to get done was done.",
};

const clip = (text: string, max = 600) =>
  text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
const shown = (value: unknown) => clip(typeof value === "string" ? value : (JSON.stringify(value) ?? ""));

/** An interaction as the judge reads it: thoughts, calls with results and schema findings, handoffs, output. */
export function interactionText(x: AgentInteraction): string {
  const lines: string[] = [];
  for (const step of x.agent_steps) {
    if (step.thought) lines.push(`[thought] ${clip(step.thought)}`);
    if (step.action !== undefined) lines.push(`[action] ${shown(step.action)}`);
    if (step.observation !== undefined) lines.push(`[observation] ${shown(step.observation)}`);
    const call = step.tool_call;
    if (call) {
      const args = call.arguments_text ?? JSON.stringify(call.parameters);
      lines.push(`[tool call] ${call.tool_name} ${clip(args, 400)}`);
      if (call.error) lines.push(`  [tool failed] ${clip(call.error)}`);
      else if (call.result !== undefined) lines.push(`  [tool result] ${shown(call.result)}`);
    }
    if (step.handoff)
      lines.push(
        `[handoff to ${step.handoff.to}]${step.handoff.context ? ` ${clip(step.handoff.context)}` : " (no context passed)"}`,
      );
  }
  if (x.tool_execution_result !== undefined)
    lines.push(`[tool execution result] ${shown(x.tool_execution_result)}`);
  lines.push(`[output] ${x.output ? clip(x.output, 1200) : "(none)"}`);
  return lines.join("\n");
}

/** The turns up to `turn` (and in it the interactions before `before`), as lines of a trajectory. */
function sessionLines(session: Session, turn: number, before = Number.POSITIVE_INFINITY): string[] {
  const lines: string[] = [];
  session.turns.slice(0, turn + 1).forEach((t, ti) => {
    lines.push(`User: ${clip(t.user_message, 800)}`);
    t.agent_interactions.forEach((x, xi) => {
      if (ti === turn && xi >= before) return;
      const calls = x.agent_steps.flatMap((s) => (s.tool_call ? [s.tool_call.tool_name] : []));
      const handoffs = x.agent_steps.flatMap((s) => (s.handoff ? [s.handoff.to] : []));
      const did = [
        calls.length ? `called ${calls.join(", ")}` : "",
        handoffs.length ? `handed off to ${handoffs.join(", ")}` : "",
      ]
        .filter(Boolean)
        .join("; ");
      lines.push(`${x.agent_id}${did ? ` (${did})` : ""}: ${x.output ? clip(x.output, 600) : "(no output)"}`);
    });
  });
  return lines;
}

/** Where a session's verdicts are keyed: its id, or its position. */
export function sessionKeyOf(session: Session, index: number): string {
  return session.id ?? `session-${index + 1}`;
}

/** The last interaction of a turn that said something: whose response the turn's checks are about. */
function responder(turn: Turn): string | undefined {
  return (
    turn.agent_interactions.findLast((x) => x.output !== undefined)?.agent_id ??
    turn.agent_interactions.at(-1)?.agent_id
  );
}

function key(session: string, metric: string, where: { agent?: string; message?: string }): VerdictKey {
  return {
    dimension: SESSION_DIMENSION,
    proposition_id: metric,
    ...(where.agent ? { agent_id: where.agent } : {}),
    ...(where.message ? { message_id: where.message } : {}),
    channel: session,
    trial: 1,
  };
}

const item = (k: VerdictKey, claim: string): JudgeItem => ({ key: k, kind: "score", claim });

/** The judge work of analysing `sessions`; `validations[i]` is session i's tool validation. */
export function sessionPlan(
  sessions: readonly Session[],
  validations: readonly ToolValidation[],
): JudgePlan<SessionMeta> {
  // Each session's verdicts are keyed by its id; two sessions with one id are told apart by position.
  const seen = new Map<string, number>();
  const sids = sessions.map((session, s) => {
    const id = sessionKeyOf(session, s);
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    return n === 1 ? id : `${id}#${n}`;
  });
  function* calls(): Generator<PlannedCall<SessionMeta>> {
    for (const [s, session] of sessions.entries()) {
      const sid = sids[s]!;
      const findings = validations[s]!.calls;
      for (const [t, turn] of session.turns.entries()) {
        for (const [i, x] of turn.agent_interactions.entries()) {
          const applies = applicableMetrics(x);
          const metrics = (Object.keys(INTERACTION_CLAIMS) as InteractionMetric[]).filter((m) => applies[m]);
          const agent = session.agents.find((a) => a.id === x.agent_id)!;
          const message = `turn ${turn.turn_index}/interaction ${i}`;
          const mine = findings
            .filter((c) => c.place.turn === t && c.place.interaction === i)
            .flatMap((c) => c.findings);
          yield {
            items: metrics.map((m) =>
              item(key(sid, m, { agent: x.agent_id, message }), INTERACTION_CLAIMS[m](x.agent_id)),
            ),
            doubleCheck: false,
            meta: metrics.map((metric) => ({
              session: s,
              level: "interaction",
              turn: t,
              interaction: i,
              metric,
            })),
            context: (): JudgeContext => ({
              persona: {
                name: x.agent_id,
                text:
                  [
                    agent.role ? `Role: ${agent.role}` : "",
                    agent.description ?? "",
                    agent.tools ? `Tools: ${agent.tools.map((tool) => tool.name).join(", ") || "none"}` : "",
                  ]
                    .filter(Boolean)
                    .join("\n") || "(no role given)",
              },
              trajectory: {
                title: applies.handoff
                  ? "The session up to this interaction, and what the agents did after it in this turn"
                  : "The session up to this interaction",
                // A handoff is judged by what the receiving agent then had to do: the rest of the turn.
                text: [
                  ...sessionLines(session, t, i),
                  ...(applies.handoff
                    ? turn.agent_interactions
                        .slice(i + 1)
                        .map(
                          (later) =>
                            `(after) ${later.agent_id}: ${interactionText(later).replaceAll("\n", " | ")}`,
                        )
                    : []),
                ].join("\n"),
              },
              action: { name: x.agent_id, text: interactionText(x) },
              ...(mine.length
                ? {
                    evidence: `Schema check of the tool calls (deterministic):\n${mine.map((f) => `- ${f.type} (${f.severity}): ${f.message}`).join("\n")}`,
                  }
                : {}),
            }),
          };
        }
        const next = session.turns[t + 1];
        const hasResults = turn.agent_interactions.some((x) =>
          x.agent_steps.some(
            (st) => st.tool_call && (st.tool_call.result !== undefined || st.tool_call.error),
          ),
        );
        const checks: TurnCheck[] = [
          ...(next ? (["rdm", "ccm"] as const) : []),
          ...(hasResults || turn.knowledge ? (["hallucination"] as const) : []),
          "llm_judge",
        ];
        const agent = responder(turn);
        const message = `turn ${turn.turn_index}`;
        yield {
          items: checks.map((m) => item(key(sid, m, { agent, message }), TURN_CLAIMS[m])),
          doubleCheck: false,
          meta: checks.map((metric) => ({ session: s, level: "turn", turn: t, metric })),
          context: (): JudgeContext => ({
            trajectory: {
              title: "The turn, with the user's next message",
              text: [
                ...sessionLines(session, t).slice(-1 - turn.agent_interactions.length),
                ...turn.agent_interactions.flatMap((x) => [
                  `--- ${x.agent_id} in detail:`,
                  interactionText(x),
                ]),
                next ? `User's next message: ${clip(next.user_message, 800)}` : "(the session ends here)",
              ].join("\n"),
            },
            action: { name: agent ?? "agents", text: turn.final_response ?? "(no response)" },
            evidence:
              [
                next
                  ? `Word overlap of the two user messages (Jaccard, 0–1): ${wordJaccard(turn.user_message, next.user_message).toFixed(2)}`
                  : "",
                turn.knowledge ? `Known facts for this turn: ${clip(turn.knowledge, 1200)}` : "",
              ]
                .filter(Boolean)
                .join("\n") || undefined,
          }),
        };
      }
      const metrics: SessionMetric[] = [
        ...(session.agents.length > 1 ? (["coordination"] as const) : []),
        "intent_drift",
        "task_completion",
      ];
      yield {
        items: metrics.map((m) => item(key(sid, m, {}), SESSION_CLAIMS[m])),
        doubleCheck: false,
        meta: metrics.map((metric) => ({ session: s, level: "session", metric })),
        context: (): JudgeContext => ({
          trajectory: {
            title: `The whole session${session.initial_task ? ` (task: ${clip(session.initial_task, 300)})` : ""}`,
            text: sessionLines(session, session.turns.length - 1).join("\n"),
          },
        }),
      };
    }
  }
  return { calls, trivial: () => [] };
}

/** A verdict's 0–1 value, or why it has none. */
function metricOf(verdict: Verdict | undefined): number | { missing: "errored" } | undefined {
  if (!verdict) return undefined;
  if (!verdict.ok || verdict.score === undefined) return { missing: "errored" };
  return verdict.score / 9;
}

/** What a call's findings allow its tool use to score at most: 0 with a HIGH finding, 0.5 with a MEDIUM one. */
function callCap(findings: ToolValidation["calls"][number]["findings"]): number {
  if (findings.some((f) => f.severity === "HIGH")) return 0;
  if (findings.some((f) => f.severity === "MEDIUM" && f.type !== "tool_error")) return 0.5;
  return 1;
}

export interface SessionJudgingOptions {
  /** CCM needs the two user messages to overlap at least this much (word Jaccard, 0–1). Default 0.5. */
  ccmThreshold?: number;
}

/** The judged parts of one session from its verdicts (by metric and place). */
export function judgedSession(
  session: Session,
  validation: ToolValidation,
  verdicts: ReadonlyMap<string, Verdict>,
  { ccmThreshold = 0.5 }: SessionJudgingOptions = {},
): JudgedSession {
  const errored = [...verdicts.values()].filter((v) => !v.ok).length;
  const get = (k: string) => verdicts.get(k);
  const interactions = session.turns.map((turn, t) =>
    turn.agent_interactions.map((x, i): InteractionMetrics => {
      const applies = applicableMetrics(x);
      const metric = (m: InteractionMetric) => {
        if (!applies[m]) return { missing: "not_applicable" as const };
        return metricOf(get(`${t}/${i}/${m}`)) ?? { missing: "errored" as const };
      };
      const toolUse = metric("tool_use");
      const caps = validation.calls
        .filter((c) => c.place.turn === t && c.place.interaction === i)
        .map((c) => callCap(c.findings));
      return {
        tool_use:
          typeof toolUse === "number" && caps.length
            ? caps.reduce((sum, cap) => sum + Math.min(toolUse, cap), 0) / caps.length
            : toolUse,
        reasoning: metric("reasoning"),
        handoff: metric("handoff"),
        response_quality: metric("response_quality"),
      };
    }),
  );
  const turns = session.turns.map((turn, t): TurnDetection => {
    const next = session.turns[t + 1];
    const similarity = next ? wordJaccard(turn.user_message, next.user_message) : 0;
    let unknown = false;
    let calm = 1;
    for (const check of ["rdm", "ccm", "hallucination", "llm_judge"] as const) {
      const v = get(`${t}/${check}`);
      if (!v) continue;
      const value = metricOf(v);
      if (typeof value !== "number") {
        unknown = true;
        continue;
      }
      const fires = value * 9 >= YES_AT && (check !== "ccm" || similarity >= ccmThreshold);
      if (fires)
        return {
          is_bad: true,
          detection_type: check as DetectionType,
          confidence: value,
          ...(responder(turn) ? { agent_id: responder(turn) } : {}),
          ...(v.ok ? { reason: v.reasoning } : {}),
        };
      calm = Math.min(calm, 1 - value);
    }
    return unknown
      ? { is_bad: null, detection_type: "none", confidence: 0 }
      : { is_bad: false, detection_type: "none", confidence: calm };
  });
  const sessionValue = (m: SessionMetric) => metricOf(get(`session/${m}`));
  const completion = sessionValue("task_completion");
  return {
    interactions,
    turns,
    coordination: sessionValue("coordination") ?? { missing: "not_applicable" },
    intent_drift: sessionValue("intent_drift") ?? { missing: "errored" },
    task_completion: typeof completion === "number" ? completion * 9 >= YES_AT : null,
    errored,
  };
}

/** Where a verdict goes in {@link judgedSession}'s map. */
function placeKey(meta: SessionMeta): string {
  if (meta.level === "interaction") return `${meta.turn}/${meta.interaction}/${meta.metric}`;
  if (meta.level === "turn") return `${meta.turn}/${meta.metric}`;
  return `session/${meta.metric}`;
}

export interface SessionEvaluationInput extends SessionJudgingOptions {
  sessions: Session[];
  validations: ToolValidation[];
  sources: SessionsAnalysis["sources"];
  /** The calls expected of the sessions (`--expect`), matched as each analysis is built. */
  expected?: ExpectedCallsFile;
  /** The judge; absent for `--judge none` (the plan then has no calls: only the deterministic parts). */
  judge?: JudgeDescriptor;
  /** The judge as the user named it (`openai:gpt-4o-mini`), for the result. */
  judgeSpec: string;
}

/** The document of an analysis: the sessions' analyses, where they came from, pass^k, and the judge's run. */
export function sessionsResult(
  sessions: readonly Session[],
  analyses: SessionAnalysis[],
  sources: SessionsAnalysis["sources"],
  judge?: SessionsAnalysis["judge"],
): SessionsAnalysis {
  const runs = sessions.filter(
    (s): s is Session & { task_id: string; success: boolean } =>
      s.task_id !== undefined && s.success !== undefined,
  );
  return {
    format: SESSIONS_ANALYSIS_FORMAT,
    analyses,
    sources,
    pass_k: runs.length ? passK(runs) : null,
    ...(judge ? { judge } : {}),
  };
}

/** A session analysis for the run engine: its plan, its score rows, and the analyses it builds. */
export function sessionEvaluation(
  input: SessionEvaluationInput,
): EvaluationOfKind<SessionMeta, SessionsAnalysis> {
  const { sessions, validations, sources, judge, judgeSpec, expected } = input;
  const trajectory = (session: Session) => expected && matchSessionCalls(expected, session);
  const plan: JudgePlan<SessionMeta> = judge
    ? sessionPlan(sessions, validations)
    : { calls: () => [], trivial: () => [] };
  // Verdicts by session and place: a session analysis is small (calls ≈ interactions + turns + 1).
  const verdicts = sessions.map(() => new Map<string, Verdict>());
  return {
    kind: "session",
    plan,
    describe: () => ({
      source: sources.map((s) => s.file).join(", "),
      config: { judge_descriptor: judge, judge: judgeSpec, ccm_threshold: input.ccmThreshold ?? 0.5 },
      agents: sessions.flatMap((session) => session.agents.map((agent) => agent.id)),
      input: { sessions, sources, ...(expected ? { expected } : {}) },
    }),
    async begin() {},
    async reopen() {},
    scoreRow: (v: PlannedVerdict<SessionMeta>, evaluationId) =>
      scoreFromVerdict(v.verdict, { evaluation_id: evaluationId }),
    add(planned) {
      for (const v of planned) verdicts[v.meta.session]!.set(placeKey(v.meta), v.verdict);
    },
    async finish({ totals }) {
      if (!judge) {
        const analyses = sessions.map((session, s) =>
          buildAnalysis(session, { validation: validations[s]!, trajectory: trajectory(session) }),
        );
        return { result: sessionsResult(sessions, analyses, sources), errored: 0 };
      }
      let errored = 0;
      const analyses = sessions.map((session, s) => {
        const judged = judgedSession(session, validations[s]!, verdicts[s]!, input);
        errored += judged.errored;
        // The judge's cost is the run's, reported once in `judge` beside the sessions.
        return buildAnalysis(session, {
          validation: validations[s]!,
          judged,
          judge: { spec: judgeSpec },
          trajectory: trajectory(session),
        });
      });
      const result = sessionsResult(sessions, analyses, sources, {
        spec: judgeSpec,
        requests: totals.requests,
        calls: totals.calls,
        calls_per_session: sessions.length ? totals.calls / sessions.length : 0,
        token_usage: totals.token_usage,
        errored,
        ...(totals.cache ? { cache: totals.cache } : {}),
      });
      return { result, errored };
    },
    async fail() {},
    async interrupt() {},
  };
}
