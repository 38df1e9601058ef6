// A conversation run as `converse` prints it and `show` reprints it: both passes side by side, the
// assertions with their actual values, the composite, and pass^k over repeated trials; a pass whose
// simulated user broke its brief is marked a simulator fault, with the judge's reasoning, and left out.

import { escapeMarkdown, markdownTable } from "../core/index.ts";
import type { ConversationResult, ConversationTrials, PassResult } from "./run-conversation.ts";

/** A score with `digits` decimals, a dash when there is none. */
export const num = (v: number | null | undefined, digits = 2) =>
  v === null || v === undefined ? "—" : v.toFixed(digits);

/**
 * A job's score: the mean of its passes' composites (the reference's command-line score), leaving out the
 * passes whose simulated user broke its brief; null when a pass it counts has no score, or it counts none.
 */
export function jobScore(result: ConversationResult): number | null {
  const counted = result.passes.filter((p) => !p.simulator_fault);
  const scores = counted.map((p) => p.composite.score).filter((s): s is number => s !== null);
  return scores.length === counted.length && scores.length > 0
    ? scores.reduce((a, b) => a + b, 0) / scores.length
    : null;
}

/** What the head line adds when passes were left out of the score: which, and why. */
function leftOut(result: ConversationResult): string {
  const faulted = result.passes.filter((p) => p.simulator_fault);
  return faulted.length === 0
    ? ""
    : ` (left out: ${faulted.map((p) => p.pass.replace("_", " ")).join(", ")}, a simulator fault)`;
}

/** The simulated user's check of a pass, in one line: clean, a fault with why, or not checked. */
export function simulatedUserLine(p: PassResult): string | undefined {
  const check = p.simulated_user;
  if (!check) return undefined;
  const errored = check.errored > 0 ? ` (${check.errored} not judged: the judge errored)` : "";
  return check.fault
    ? `SIMULATOR FAULT: the simulated user broke its brief — ${check.reason ?? ""}${errored}`
    : `the simulated user kept to its brief${errored}`;
}

export function renderConversationTable(results: readonly ConversationResult[]): string {
  const out: string[] = [];
  for (const r of results) {
    out.push(
      `${r.job}: score ${num(jobScore(r))}${leftOut(r)}${r.difference !== null ? ` (with facts − without: ${num(r.difference)})` : ""}`,
    );
    for (const p of r.passes) {
      const c = p.composite;
      const ended =
        p.transcript.ended === "agent_failed"
          ? `the agent failed: ${p.transcript.error}`
          : p.transcript.ended.replace("_", " ");
      out.push(
        `  ${p.pass.replace("_", " ")}: composite ${num(c.score)} = timing ${num(c.timing)}, tasks ${num(c.task)}, assertions ${num(c.assertions)}, penalty ${num(c.penalty)}${c.formula === "without-assertions" ? " (no assertions: (timing + 2·task) / 3)" : ""}`,
      );
      out.push(
        `    ${p.transcript.turns.length} messages, ended: ${ended}, failed requests: ${p.transcript.failures}, tone ${num(p.tone)}`,
      );
      const user = simulatedUserLine(p);
      if (user) out.push(`    ${user}`);
      for (const t of p.tasks)
        out.push(`    task ${num(t.score)}  ${t.task}${t.reasoning ? ` — ${t.reasoning}` : ""}`);
      for (const a of p.assertions)
        out.push(
          `    ${a.passed ? "PASS" : "FAIL"} ×${a.weight}  ${a.label}${a.failed ? `  [false: ${a.failed}]` : ""}${a.actual !== undefined ? `  actual ${JSON.stringify(a.actual)}` : ""}${a.expected !== undefined ? `, expected ${JSON.stringify(a.expected)}` : ""}${a.error ? `  (${a.error})` : ""}`,
        );
    }
  }
  return out.join("\n");
}

const passTitle = (pass: string) => (pass === "with_facts" ? "with facts" : "without facts");

/** A job as Markdown: its passes side by side — composite and parts, tasks, assertions with actual values. */
export function renderConversationMarkdown(results: readonly ConversationResult[]): string {
  const out: string[] = [];
  for (const r of results) {
    out.push(
      `### ${escapeMarkdown(r.job)} — score ${num(jobScore(r))}${escapeMarkdown(leftOut(r))}${r.difference !== null ? ` (with facts − without: ${num(r.difference)})` : ""}`,
      "",
    );
    const row = (label: string, cell: (p: ConversationResult["passes"][number]) => string) => [
      label,
      ...r.passes.map(cell),
    ];
    const rows = [
      row("**composite**", (p) => `**${num(p.composite.score)}**`),
      row("timing", (p) => num(p.composite.timing)),
      row("tasks", (p) => num(p.composite.task)),
      row("assertions", (p) => num(p.composite.assertions)),
      row("penalty", (p) => num(p.composite.penalty)),
      row("tone", (p) => num(p.tone)),
      row("messages", (p) => String(p.transcript.turns.length)),
      row("ended", (p) =>
        escapeMarkdown(
          p.transcript.ended === "agent_failed"
            ? `agent failed: ${p.transcript.error ?? ""}`
            : p.transcript.ended.replace("_", " "),
        ),
      ),
      ...(r.passes.some((p) => p.simulated_user)
        ? [
            row("simulated user", (p) =>
              p.simulated_user
                ? p.simulated_user.fault
                  ? `⚠️ simulator fault: ${escapeMarkdown(p.simulated_user.reason ?? "")}`
                  : "kept to its brief"
                : "—",
            ),
          ]
        : []),
      ...(r.passes[0]?.tasks ?? []).map((t, i) =>
        row(`task: ${escapeMarkdown(t.task)}`, (p) => num(p.tasks[i]?.score)),
      ),
      ...(r.passes[0]?.assertions ?? []).map((a, i) =>
        row(`assertion ×${a.weight}: ${escapeMarkdown(a.label)}`, (p) => {
          const got = p.assertions[i];
          if (!got) return "—";
          const actual =
            got.actual !== undefined
              ? ` (actual ${escapeMarkdown(JSON.stringify(got.actual))}${got.expected !== undefined ? `, expected ${escapeMarkdown(JSON.stringify(got.expected))}` : ""})`
              : "";
          return `${got.passed ? "✅ pass" : "❌ fail"}${actual}${got.error ? ` ${escapeMarkdown(got.error)}` : ""}`;
        }),
      ),
    ];
    out.push(
      ...markdownTable(
        [{ title: "" }, ...r.passes.map((p) => ({ title: passTitle(p.pass), right: true }))],
        rows,
      ),
      "",
    );
  }
  return out.join("\n").trimEnd();
}

/** Repeated trials: each trial's score and, with a threshold, pass^k; then every trial's own report. */
export function renderTrials(jobs: readonly ConversationTrials[], format: "table" | "markdown"): string {
  const out: string[] = [];
  for (const j of jobs) {
    const head = `${j.job}: ${j.trials.length} trials, scores ${j.scores.map((s) => num(s)).join(" ")}`;
    const faults = j.simulator_faults ?? [];
    const counted = j.trials.length - faults.length;
    const passK =
      j.pass_k &&
      `pass^k (a trial passes at score ≥ ${j.min_score}${faults.length > 0 ? `; over ${counted} of ${j.trials.length} trials` : ""}): ${
        Object.entries(j.pass_k)
          .map(([k, v]) => `k=${k} ${num(v)}`)
          .join(", ") || "none (no trial counted)"
      }`;
    const apart =
      faults.length > 0
        ? `${faults.length} trial${faults.length === 1 ? "" : "s"} left out${j.pass_k ? " of pass^k" : ""}: the simulated user broke its brief (a simulator fault, not the agent's): ${faults.map((f) => `trial ${f.trial} — ${f.reason}`).join("; ")}`
        : undefined;
    if (format === "markdown") {
      out.push(`## ${escapeMarkdown(head)}`, "");
      if (passK) out.push(escapeMarkdown(passK), "");
      if (apart) out.push(escapeMarkdown(apart), "");
      for (const [i, t] of j.trials.entries())
        out.push(`#### trial ${i + 1}`, "", renderConversationMarkdown([t]), "");
    } else {
      out.push(head);
      if (passK) out.push(passK);
      if (apart) out.push(apart);
      for (const [i, t] of j.trials.entries())
        out.push(
          `trial ${i + 1}:`,
          ...renderConversationTable([t])
            .split("\n")
            .map((line) => `  ${line}`),
        );
    }
  }
  return out.join("\n").trimEnd();
}
