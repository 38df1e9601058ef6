// A session as a trace: per turn, a waterfall of its agents' interactions, tool calls and handoffs on a
// time axis (an SVG whose geometry is in its attributes: the CSP allows no inline style), then every step
// in full — tool arguments and results pretty-printed, handoffs with their context — and the errors
// marked where they happened: a call that broke its tool's schema, a tool that failed, a bad turn's agent.
import {
  RECOMMENDATION_THRESHOLD,
  type Session,
  type SessionAnalysis,
  type ToolCall,
  type ToolFinding,
} from "../sessions/index.ts";
import { jsonText, milliseconds, score1 } from "./format.ts";
import { type Html, html } from "./html.ts";

/**
 * The turn number pages show: the session's own `turn_index` (0-based unless the trace numbered its turns
 * otherwise), as the analysis' sentences, the CLI and the JSON name turns — one numbering everywhere.
 */
export function turnNumber(turnIndex: number): number {
  return turnIndex;
}

const METRICS = ["tool_use", "reasoning", "handoff", "response_quality"] as const;

/** A finding's step in its session, from its JSON path (`turns[0].agent_interactions[1].agent_steps[2]…`). */
const STEP_PATH = /^turns\[(\d+)\]\.agent_interactions\[(\d+)\]\.agent_steps\[(\d+)\]/;

/** The findings of an analysis by step (`turn.interaction.step`, positions in the session). */
function findingsByStep(findings: readonly ToolFinding[]): Map<string, ToolFinding[]> {
  const byStep = new Map<string, ToolFinding[]>();
  for (const f of findings) {
    const m = STEP_PATH.exec(f.path);
    if (!m) continue;
    const key = `${m[1]}.${m[2]}.${m[3]}`;
    byStep.set(key, [...(byStep.get(key) ?? []), f]);
  }
  return byStep;
}

/**
 * What is wrong in the turn at position `t`, one sentence each: its bad-turn detection, its tool findings
 * (schema failures and tool errors), and judged metrics of its interactions below the recommendation
 * threshold. Empty for a turn with no issue.
 */
export function turnIssues(a: SessionAnalysis, t: number): string[] {
  const turn = a.turn_results[t];
  if (!turn) return [];
  const out: string[] = [];
  if (turn.is_bad)
    out.push(`bad turn (${turn.detection_type})${turn.agent_id ? ` by ${turn.agent_id}` : ""}`);
  for (const f of a.tool_validation)
    if (f.turn_index === turn.turn_index) out.push(`${f.agent_id} → ${f.tool_name}: ${f.type}`);
  for (const x of turn.interactions)
    for (const m of METRICS) {
      const v = x[m];
      if (v !== null && v < RECOMMENDATION_THRESHOLD)
        out.push(`${x.agent_id} ${m.replace("_", " ")} ${score1(v)} < ${RECOMMENDATION_THRESHOLD}`);
    }
  return out;
}

/** One row of a turn's waterfall. */
interface Bar {
  kind: "agent" | "tool" | "handoff";
  label: string;
  /** Offset from the turn's start and duration, ms (or units when the turn has no latency at all). */
  start: number;
  duration: number;
  /** The latency the session gives, when it gives one. */
  latency: number | undefined;
  /** Why the row is marked red, when it is. */
  error: string | undefined;
  /** The id of the row that shows it in full. */
  anchor: string;
}

const ROW = 34;
const AXIS = 24;

/** A percentage of the axis, as SVG attributes take it. */
const pct = (value: number, total: number) => `${((value / total) * 100).toFixed(3)}%`;

/** Short text for the chart (the row below it has the whole). */
const clip = (text: string, max = 70) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * The bars of one turn, placed from the latencies in order: each interaction starts when the one before it
 * ended, each tool call within its interaction when the step before it ended. Sessions carry latencies, not
 * timestamps; a turn with none at all is laid out by order alone (one unit per untimed thing).
 */
function turnBars(
  session: Session,
  t: number,
  anchorOf: (i: number, s?: number) => string,
  errorOf: (i: number, s?: number) => string | undefined,
): { bars: Bar[]; total: number; timed: boolean } {
  const turn = session.turns[t]!;
  const timed = turn.agent_interactions.some(
    (x) =>
      x.latency_ms !== undefined ||
      x.agent_steps.some((s) => s.latency_ms !== undefined || s.tool_call?.latency_ms !== undefined),
  );
  const untimed = timed ? 0 : 1;
  const bars: Bar[] = [];
  let clock = 0;
  turn.agent_interactions.forEach((x, i) => {
    const start = clock;
    const agentBar: Bar = {
      kind: "agent",
      label: x.agent_id,
      start,
      duration: 0,
      latency: x.latency_ms,
      error: errorOf(i),
      anchor: anchorOf(i),
    };
    bars.push(agentBar);
    let inner = start;
    x.agent_steps.forEach((step, s) => {
      const call = step.tool_call;
      if (call) {
        const latency = call.latency_ms ?? step.latency_ms;
        const duration = latency ?? untimed;
        bars.push({
          kind: "tool",
          label: call.tool_name,
          start: inner,
          duration,
          latency,
          error: errorOf(i, s),
          anchor: anchorOf(i, s),
        });
        inner += duration;
      } else if (step.handoff) {
        bars.push({
          kind: "handoff",
          label: `hands off to ${step.handoff.to}`,
          start: inner,
          duration: 0,
          latency: undefined,
          error: undefined,
          anchor: anchorOf(i, s),
        });
      } else inner += step.latency_ms ?? 0;
    });
    agentBar.duration = x.latency_ms ?? Math.max(inner - start, untimed);
    clock = start + agentBar.duration;
  });
  const total = Math.max(clock, ...bars.map((b) => b.start + b.duration));
  return { bars, total, timed };
}

function barLabel(bar: Bar, timed: boolean): string {
  const latency =
    bar.latency !== undefined
      ? ` · ${milliseconds(bar.latency)}`
      : timed && bar.kind !== "handoff"
        ? " · no latency"
        : "";
  return `${bar.kind === "tool" ? "→ " : ""}${bar.label}${latency}${bar.error ? ` · ✕ ${clip(bar.error, 50)}` : ""}`;
}

/** The waterfall of one turn: an SVG whose bars link to the rows that show them in full. */
function waterfall(turnLabel: string, bars: Bar[], total: number, timed: boolean): Html {
  if (bars.length === 0) return html``;
  const scale = total > 0 ? total : 1;
  const height = bars.length * ROW + AXIS;
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return html`<figure class="timeline">
<svg class="waterfall" width="100%" height="${height}" role="img" aria-label="${turnLabel}: ${bars.length} bars on a time axis of ${timed ? milliseconds(total) : "order only"}">
${ticks.map(
  (q) =>
    html`<line class="grid" x1="${pct(q, 1)}" x2="${pct(q, 1)}" y1="0" y2="${height - AXIS + 4}"></line>`,
)}
${bars.map((bar, r) => {
  const y = r * ROW;
  const width = (bar.duration / scale) * 100;
  const classes = `row ${bar.kind}${bar.error ? " error" : ""}${bar.latency === undefined && bar.kind !== "handoff" ? " untimed" : ""}`;
  const label = barLabel(bar, timed);
  return html`<g class="${classes}"><title>${label}</title>
<text class="label" x="${bar.kind === "agent" ? 16 : 28}" y="${y + 13}">${clip(label, 90)}</text>
<a href="#${bar.anchor}"><rect class="bar" x="${pct(bar.start, scale)}" y="${y + 18}" ${
    width >= 0.5 ? html`width="${width.toFixed(3)}%"` : html`width="4"`
  } height="${bar.kind === "handoff" ? 12 : 10}" rx="2"></rect></a>${
    bar.error
      ? html`<circle class="error-mark" cx="${bar.kind === "agent" ? 8 : 20}" cy="${y + 9}" r="5"></circle>`
      : ""
  }</g>`;
})}
${
  timed
    ? ticks.map(
        (q, k) =>
          html`<text class="axis" x="${pct(q, 1)}" y="${height - 6}" text-anchor="${k === 0 ? "start" : k === ticks.length - 1 ? "end" : "middle"}">${milliseconds(total * q)}</text>`,
      )
    : html`<text class="axis" x="0" y="${height - 6}">order only: no latency in this turn</text>`
}
</svg>
</figure>`;
}

/** Any JSON value in full, indented; text as it is. */
function prettyJson(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return (
      JSON.stringify(value, (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v), 2) ?? String(value)
    );
  } catch {
    return String(value);
  }
}

function findingItem(f: ToolFinding): Html {
  return html`<li class="finding ${f.severity}"><strong>${f.agent_id} → ${f.tool_name}</strong>: ${f.message} <span class="muted">${f.type} · <code>${f.path}</code></span></li>`;
}

function toolCallBlock(call: ToolCall): Html {
  const result =
    call.result === undefined
      ? html`<p class="muted">No result recorded.</p>`
      : html`<pre class="tool-result">${prettyJson(call.result)}</pre>`;
  return html`<p class="tool-call"><code>${call.tool_name}</code> <code>${call.arguments_text ?? jsonText(call.parameters)}</code>${
    call.latency_ms === undefined ? "" : html` <span class="muted">${milliseconds(call.latency_ms)}</span>`
  }</p>
${call.error ? html`<p class="step-error">✕ The tool failed: ${call.error}</p>` : ""}
${call.result !== undefined ? html`<p class="tool-result-line"><span class="muted">result</span> <code>${clip(jsonText(call.result), 160)}</code></p>` : ""}
<details class="tool-io"><summary>Arguments and result in full</summary>
<h5>Arguments</h5><pre class="tool-arguments">${call.arguments_text ?? prettyJson(call.parameters)}</pre>
<h5>Result</h5>${result}
</details>`;
}

export interface SessionTraceOptions {
  /** Makes the section's ids unique on a page that shows several analyses (and in a static report). */
  idPrefix: string;
  /** Show only the turns with an issue ({@link turnIssues}). */
  onlyIssues?: boolean;
}

/** The id of a turn's row in {@link sessionTrace}, for links from elsewhere on the page. */
export const turnAnchor = (idPrefix: string, turnIndex: number) => `${idPrefix}turn-${turnNumber(turnIndex)}`;

/**
 * The session's turns as a trace: each turn's waterfall, then its interactions and steps in full with
 * every error beside the step (or interaction) it is about.
 */
/**
 * The steps whose call was made and not expected (`--expect`), by step key: each agent's calls (or the whole
 * session's, for an expectation of no agent) counted in session order, as the match counted them.
 */
function unexpectedSteps(session: Session, a: SessionAnalysis): Set<string> {
  const found = new Set<string>();
  const match = a.trajectory_match;
  if (!match) return found;
  const counted = new Map<string, number>();
  session.turns.forEach((turn, t) => {
    turn.agent_interactions.forEach((x, i) => {
      x.agent_steps.forEach((step, s) => {
        if (!step.tool_call) return;
        const agent = match.agents["*"] ? "*" : x.agent_id;
        const index = counted.get(agent) ?? 0;
        counted.set(agent, index + 1);
        if (match.agents[agent]?.unexpected.includes(index)) found.add(`${t}.${i}.${s}`);
      });
    });
  });
  return found;
}

/** The expected calls' verdict above the timeline: the mode, the figures, what is missing per agent. */
function expectedCallsSummary(a: SessionAnalysis): Html {
  const match = a.trajectory_match;
  if (!match) return html``;
  const figure = (x: number | null) => (x === null ? "—" : x.toFixed(2));
  const missing = Object.entries(match.agents).filter(([, m]) => m.missing_tools.length > 0);
  return html`<p class="expected-calls"><strong>Expected calls (${match.mode})</strong>: <span class="status ${match.passed ? "completed" : "failed"}">${match.passed ? "passed" : "failed"}</span> · precision ${figure(match.precision)} · recall ${figure(match.recall)} · F1 ${figure(match.f1)}${
    missing.length
      ? html`; missing: ${missing.map(([agent, m], k) => html`${k > 0 ? "; " : ""}${agent === "*" ? "" : `${agent}: `}${m.missing_tools.join(", ")}`)}`
      : ""
  }. A call marked "not expected" below was made and matched nothing expected.</p>`;
}

export function sessionTrace(session: Session, a: SessionAnalysis, options: SessionTraceOptions): Html {
  const { idPrefix, onlyIssues = false } = options;
  const byStep = findingsByStep(a.tool_validation);
  const unexpected = unexpectedSteps(session, a);
  const shown = session.turns.map((_, t) => t).filter((t) => !onlyIssues || turnIssues(a, t).length > 0);
  return html`<h3>Timeline</h3>
<p class="muted">Positions are reconstructed from the latencies, in order: the session records how long each
interaction and tool call took, not when it started. Each interaction starts when the one before it ended; each
tool call within it when the step before it ended. A red mark is an error: a call that broke its tool's schema,
a tool that failed, or the agent a bad turn is attributed to. Click a bar for its row.</p>
${expectedCallsSummary(a)}${shown.length === 0 ? html`<p>No turn has an issue.</p>` : ""}
<ol class="conversation">${shown.map((t) => {
    const turn = session.turns[t]!;
    const detection = a.turn_results[t];
    const number = turnNumber(turn.turn_index);
    const turnId = turnAnchor(idPrefix, turn.turn_index);
    const anchorOf = (i: number, s?: number) => `${turnId}-${i + 1}${s === undefined ? "" : `-${s + 1}`}`;
    // The interaction a bad turn is pinned on: the last one of the agent it is attributed to.
    const badAt =
      detection?.is_bad && detection.agent_id
        ? turn.agent_interactions.findLastIndex((x) => x.agent_id === detection.agent_id)
        : -1;
    const badText = detection?.is_bad
      ? `bad turn: ${detection.detection_type}${detection.reason ? ` — ${detection.reason}` : ""}`
      : undefined;
    const errorOf = (i: number, s?: number) => {
      if (s === undefined) return i === badAt ? badText : undefined;
      const mine = byStep.get(`${t}.${i}.${s}`);
      return mine?.map((f) => f.message).join("; ");
    };
    const { bars, total, timed } = turnBars(session, t, anchorOf, errorOf);
    return html`<li class="turn" id="${turnId}">
<h4>Turn ${number}${detection?.is_bad ? html` <span class="status failed">${badText}</span>` : ""}</h4>
<p class="user"><strong>User</strong> ${turn.user_message}</p>
${waterfall(`Turn ${number}`, bars, total, timed)}
${turn.agent_interactions.map(
  (
    x,
    i,
  ) => html`<div class="interaction${i === badAt ? " failed" : ""}" id="${anchorOf(i)}" data-agent="${x.agent_id}">
<p class="agent"><strong>${x.agent_id}</strong>${x.latency_ms === undefined ? "" : html` <span class="muted">${milliseconds(x.latency_ms)}</span>`}</p>
${i === badAt ? html`<p class="step-error">✕ ${badText}</p>` : ""}
${
  x.agent_steps.length > 0
    ? html`<ol class="steps">${x.agent_steps.map((step, s) => {
        const mine = byStep.get(`${t}.${i}.${s}`) ?? [];
        return html`<li class="step${mine.length > 0 ? " with-findings" : ""}" id="${anchorOf(i, s)}">
${step.thought ? html`<p class="thought">${step.thought}</p>` : ""}
${step.tool_call ? toolCallBlock(step.tool_call) : ""}${unexpected.has(`${t}.${i}.${s}`) ? html`<p class="step-unexpected">not expected (${a.trajectory_match!.mode})</p>` : ""}
${step.handoff ? html`<p class="handoff">hands off to <strong>${step.handoff.to}</strong>${step.handoff.context ? " with this context:" : ""}</p>${step.handoff.context ? html`<pre class="handoff-context">${step.handoff.context}</pre>` : ""}` : ""}
${mine.length > 0 ? html`<ul class="findings">${mine.map(findingItem)}</ul>` : ""}
</li>`;
      })}</ol>`
    : ""
}
${x.output ? html`<p class="output">${x.output}</p>` : ""}
</div>`,
)}
${turn.final_response ? html`<p class="final"><strong>Answer</strong> ${turn.final_response}</p>` : ""}
</li>`;
  })}</ol>`;
}
