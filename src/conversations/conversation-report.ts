// A conversation run as `converse` prints it and `show` reprints it: both passes side by side, the
// assertions with their actual values, the composite, and pass^k over repeated trials.

import { escapeMarkdown, markdownTable } from "../core/index.ts";
import type { ConversationResult, ConversationTrials } from "./run-conversation.ts";

/** A score with `digits` decimals, a dash when there is none. */
export const num = (v: number | null | undefined, digits = 2) =>
  v === null || v === undefined ? "—" : v.toFixed(digits);

/** A job's score: the mean of its passes' composites (the reference's command-line score), or null. */
export function jobScore(result: ConversationResult): number | null {
  const scores = result.passes.map((p) => p.composite.score).filter((s): s is number => s !== null);
  return scores.length === result.passes.length && scores.length > 0
    ? scores.reduce((a, b) => a + b, 0) / scores.length
    : null;
}

export function renderConversationTable(results: readonly ConversationResult[]): string {
  const out: string[] = [];
  for (const r of results) {
    out.push(
      `${r.job}: score ${num(jobScore(r))}${r.difference !== null ? ` (with facts − without: ${num(r.difference)})` : ""}`,
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
      `### ${escapeMarkdown(r.job)} — score ${num(jobScore(r))}${r.difference !== null ? ` (with facts − without: ${num(r.difference)})` : ""}`,
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
    const passK =
      j.pass_k &&
      `pass^k (a trial passes at score ≥ ${j.min_score}): ${Object.entries(j.pass_k)
        .map(([k, v]) => `k=${k} ${num(v)}`)
        .join(", ")}`;
    if (format === "markdown") {
      out.push(`## ${escapeMarkdown(head)}`, "");
      if (passK) out.push(escapeMarkdown(passK), "");
      for (const [i, t] of j.trials.entries())
        out.push(`#### trial ${i + 1}`, "", renderConversationMarkdown([t]), "");
    } else {
      out.push(head);
      if (passK) out.push(passK);
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
