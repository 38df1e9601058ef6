// A session analysis as `session analyze` prints it and `show` reprints it: a table or Markdown (the JSON is
// the library's document of it, `sessionsDocument`).

import type { SessionsAnalysis } from "./analyze.ts";
import type { SessionTrajectoryMatch } from "./expected-calls.ts";

/** A 0–1 score as the tables show it, a dash when there is none. */
export const score = (v: number | null) => (v === null ? "—" : v.toFixed(2));
const ms = (v: number | null) => (v === null ? "—" : `${Math.round(v)} ms`);

/** A plain-text table per session: scores, agents, findings, recommendations, latency. */
export function renderSessionTable(result: SessionsAnalysis): string {
  const out: string[] = [];
  for (const [i, a] of result.analyses.entries()) {
    if (i > 0) out.push("");
    out.push(`session ${a.session_id ?? i + 1}${a.task_id ? ` (task ${a.task_id})` : ""}`);
    out.push(
      `  overall ${score(a.overall_score)} · coordination ${score(a.coordination_score)} · intent drift ${score(a.intent_drift_score)} · task completed ${a.task_completion ?? "—"}`,
    );
    if (a.overall.left_out.length)
      out.push(
        `  left out of the overall: ${a.overall.left_out.map((l) => `${l.metric} (${l.reason.replaceAll("_", " ")})`).join(", ")}`,
      );
    out.push("", "  agent            overall  tool use  reasoning  handoff  response  interactions");
    for (const [id, s] of Object.entries(a.per_agent_scores))
      out.push(
        `  ${id.padEnd(16).slice(0, 16)} ${score(s.overall).padStart(7)}  ${score(s.tool_use).padStart(8)}  ${score(s.reasoning).padStart(9)}  ${score(s.handoff).padStart(7)}  ${score(s.response_quality).padStart(8)}  ${String(s.interactions_count).padStart(12)}`,
      );
    const bad = a.turn_results.filter((t) => t.is_bad);
    if (bad.length) {
      out.push("", "  bad turns:");
      for (const t of bad)
        out.push(
          `  turn ${t.turn_index}: ${t.detection_type} (${t.confidence.toFixed(2)})${t.agent_id ? ` by ${t.agent_id}` : ""}${t.reason ? ` — ${t.reason}` : ""}`,
        );
    }
    out.push(
      "",
      `  tool calls: ${a.tool_calls.total}, with findings: ${a.tool_calls.with_findings}, not checked: ${a.tool_calls.unchecked}`,
    );
    for (const f of a.tool_validation)
      out.push(
        `  ${f.severity.padEnd(6)} turn ${f.turn_index} ${f.agent_id} ${f.tool_name}: ${f.type} — ${f.message}`,
      );
    if (a.trajectory_match) out.push("", ...trajectoryLines(a.trajectory_match));
    if (a.recommendations.length) {
      out.push("", "  recommendations:");
      for (const r of a.recommendations)
        out.push(
          `  - ${r.text}${r.findings.length ? ` (${r.findings.length} finding${r.findings.length === 1 ? "" : "s"})` : ""}`,
        );
    }
    const tools = Object.entries(a.latency.per_tool);
    if (tools.length) {
      out.push("", "  tool             calls  errors      p50      p95      max");
      for (const [name, t] of tools)
        out.push(
          `  ${name.padEnd(16).slice(0, 16)} ${String(t.calls).padStart(5)}  ${String(t.errors).padStart(6)}  ${ms(t.p50_ms).padStart(7)}  ${ms(t.p95_ms).padStart(7)}  ${ms(t.max_ms).padStart(7)}`,
        );
    }
    const slow = a.latency.slowest_tool_call ?? a.latency.slowest_interaction;
    if (slow)
      out.push(
        `  slowest: ${slow.agent_id}${slow.tool_name ? ` → ${slow.tool_name}` : ""} in turn ${slow.turn_index}, ${ms(slow.latency_ms)}`,
      );
  }
  if (result.judge) {
    const j = result.judge;
    out.push(
      "",
      `judge ${j.spec}: ${j.requests} request(s), ${j.calls} model call(s) (${j.calls_per_session.toFixed(1)} per session), ${j.token_usage.input_tokens + j.token_usage.output_tokens} tokens${j.errored ? `, ${j.errored} verdict(s) failed` : ""}`,
    );
  }
  if (result.pass_k)
    out.push(
      "",
      `pass^k over ${result.pass_k.tasks} task(s), ${result.pass_k.runs_per_task} runs each: ${Object.entries(
        result.pass_k.pass_k,
      )
        .map(([k, v]) => `k=${k} ${v.toFixed(3)}`)
        .join(" · ")}`,
    );
  for (const s of result.sources) for (const n of s.notes) out.push(`note: ${s.file}: ${n}`);
  return out.join("\n");
}

/** Markdown: the same as the table, for a PR comment or a report. */
export function renderSessionMarkdown(result: SessionsAnalysis): string {
  const cell = (s: string) => s.replaceAll("|", "\\|").replaceAll("\n", " ");
  const out: string[] = [];
  for (const [i, a] of result.analyses.entries()) {
    out.push(`## Session ${cell(a.session_id ?? String(i + 1))}`, "");
    out.push(
      `Overall **${score(a.overall_score)}** · coordination ${score(a.coordination_score)} · intent drift ${score(a.intent_drift_score)}`,
      "",
    );
    out.push(
      "| agent | overall | tool use | reasoning | handoff | response | interactions |",
      "|---|---|---|---|---|---|---|",
    );
    for (const [id, s] of Object.entries(a.per_agent_scores))
      out.push(
        `| ${cell(id)} | ${score(s.overall)} | ${score(s.tool_use)} | ${score(s.reasoning)} | ${score(s.handoff)} | ${score(s.response_quality)} | ${s.interactions_count} |`,
      );
    if (a.tool_validation.length) {
      out.push("", "| turn | agent | tool | finding | severity | detail |", "|---|---|---|---|---|---|");
      for (const f of a.tool_validation)
        out.push(
          `| ${f.turn_index} | ${cell(f.agent_id)} | ${cell(f.tool_name)} | ${f.type} | ${f.severity} | ${cell(f.message)} |`,
        );
    }
    if (a.trajectory_match) {
      const [verdict, ...agents] = trajectoryLines(a.trajectory_match).map((l) => cell(l.trim()));
      out.push("", verdict!, ...(agents.length ? ["", ...agents.map((l) => `- ${l}`)] : []));
    }
    if (a.recommendations.length) {
      out.push("");
      for (const r of a.recommendations) out.push(`- ${cell(r.text)}`);
    }
    out.push("");
  }
  return out.join("\n");
}

/** The calls made against those expected: the verdict and figures, then per agent what is missing or unexpected. */
function trajectoryLines(m: SessionTrajectoryMatch): string[] {
  const figure = (x: number | null) => (x === null ? "—" : x.toFixed(2));
  const numbers = (indexes: number[]) =>
    indexes.length ? ` (#${indexes.map((i) => i + 1).join(", #")})` : "";
  const lines = [
    `  expected calls (${m.mode}): ${m.passed ? "passed" : "FAILED"} · precision ${figure(m.precision)} · recall ${figure(m.recall)} · F1 ${figure(m.f1)}`,
  ];
  for (const [agent, a] of Object.entries(m.agents)) {
    if (a.missing.length === 0 && a.unexpected.length === 0) continue;
    lines.push(
      `  ${agent === "*" ? "" : `${agent}: `}${a.missing.length} expected call(s) missing${a.missing_tools.length ? ` (${a.missing_tools.join(", ")})` : ""}, ${a.unexpected.length} made and not expected${numbers(a.unexpected)}`,
    );
  }
  return lines;
}
