// The action gate's and a simulation's reports as text: what `corrections stats` prints, and what
// `simulate` and `eval --synthetic` print and `show` reprints of a simulation.
import type { CorrectionStatistics, ScoreSpread, TokenUsage } from "../core/index.ts";
import type { SimulationResultDocument } from "./simulation-run.ts";
import type { WorldCorrectionsSummary } from "./world-gate.ts";

const percent = (rate: number | null) => (rate === null ? "–" : `${(rate * 100).toFixed(1)}%`);
const fixed = (value: number | null, digits = 2) => (value === null ? "–" : value.toFixed(digits));

/** The statistics as a few labelled lines and a table of the gate's dimensions. */
export function statisticsTable(s: CorrectionStatistics, agent?: string, run?: string): string {
  const who = `${agent ? `agent ${agent}` : "all agents"}${run ? `, run ${run}` : ""}`;
  if (s.checks === 0) return `no correction checks stored (${who})\n`;
  const spread = (x: ScoreSpread) => `${fixed(x.mean)} ± ${fixed(x.sd)} (n ${x.n})`;
  const lines = [
    `${s.checks} gate checks (${who})`,
    `outcomes                   ${Object.entries(s.outcomes)
      .map(([outcome, count]) => `${outcome} ${count}`)
      .join(" · ")}`,
    `original success rate      ${percent(s.original_success_rate)} (${s.original_successes} passed first time)`,
    `regeneration failure rate  ${percent(s.regeneration_failure_rate)} (${s.first_attempt_failures} first attempts failed)`,
    `similarity failures        ${s.similarity.failures} of ${s.similarity.n} checked; similarity ${spread(s.similarity)}`,
    `total score                ${spread(s.total_score)}`,
    `tokens                     ${s.token_usage.input_tokens} in, ${s.token_usage.output_tokens} out`,
    "",
  ];
  const rows = [["dimension", "scored", "mean", "sd", "failures", "timeouts", "errored"]];
  for (const [dimension, d] of Object.entries(s.dimensions))
    rows.push([
      dimension,
      String(d.n),
      fixed(d.mean),
      fixed(d.sd),
      String(d.failures),
      String(d.timeouts),
      String(d.errored),
    ]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows)
    lines.push(
      row
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
        .join("  ")
        .trimEnd(),
    );
  return `${lines.join("\n")}\n`;
}

/** A stored simulation as `simulate` reports it and `show` reprints it: what ran, what fired, what the gate did. */
export function renderSimulation(doc: SimulationResultDocument & { evaluation_id: string }): string {
  const id = doc.evaluation_id;
  const lines = [
    `simulated ${doc.steps} steps: ${doc.transcript.messages} messages (${doc.transcript.dropped} dropped), ${doc.calls.agent} agent calls, ${doc.calls.judge} judge calls${doc.calls.gate ? ` (${doc.calls.gate} by the action gate)` : ""}, ${doc.interventions.length} interventions fired`,
    `simulation ${id} of ${doc.world.file} (world ${doc.world.hash}), model ${doc.model ?? "–"}, seed ${doc.seed}; messages stored as ${doc.transcript.source}`,
  ];
  for (const fired of doc.interventions)
    lines.push(`  step ${fired.step}: ${fired.name} (${fired.agent_ids.join(", ")})`);
  const usage = (u: TokenUsage) => `${u.input_tokens} in, ${u.output_tokens} out`;
  lines.push(
    `tokens: agents ${usage(doc.tokens.agents)}; interventions ${usage(doc.tokens.interventions)}; gate ${usage(doc.tokens.gate)}`,
  );
  if (doc.gate) lines.push(gateSummaryLine(doc.gate, id));
  let text = `${lines.join("\n")}\n`;
  if (doc.statistics && doc.statistics.checks > 0)
    text += statisticsTable(doc.statistics, undefined, id.slice(0, 8));
  return text;
}

/** One line on what the gate and repetition suppression did in a simulation. */
export function gateSummaryLine(summary: WorldCorrectionsSummary, runId: string): string {
  const o = summary.outcomes;
  const parts = [
    `${summary.checks} checks`,
    `${o.passed} passed`,
    `${o.corrected + o.passed_after_retry} corrected`,
    `${o.forced_through} forced through`,
    `${o.timeout_pass_through} timeouts`,
  ];
  if (summary.rejected > 0) parts.push(`${summary.rejected} rejected`);
  return `action gate: ${parts.join(", ")}; ${summary.repetitionWarnings} repetition warnings (run ${runId}; dramaturg corrections stats --run ${runId.slice(0, 8)})`;
}
