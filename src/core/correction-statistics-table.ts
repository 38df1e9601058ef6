// The action gate's statistics as text: what `corrections stats` prints, and what a simulation's report
// (`simulate`, `show`) ends with. Pure: the statistics in, lines out.
import type { CorrectionStatistics, ScoreSpread } from "./correction-statistics.ts";

const percent = (rate: number | null) => (rate === null ? "–" : `${(rate * 100).toFixed(1)}%`);
const fixed = (value: number | null, digits = 2) => (value === null ? "–" : value.toFixed(digits));

/** The statistics as a few labelled lines and a table of the gate's dimensions. */
export function correctionStatisticsTable(s: CorrectionStatistics, agent?: string, run?: string): string {
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
