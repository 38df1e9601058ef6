// A simulation's report as text: what `simulate` prints and `show` reprints of a stored simulation, and the
// line on what its gate did that `eval --synthetic` prints too. Pure text from the document.
import { correctionStatisticsTable, type TokenUsage, type WorldCorrectionsSummary } from "../core/index.ts";
import type { SimulationResultDocument } from "./simulation-result.ts";

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
    text += correctionStatisticsTable(doc.statistics, undefined, id.slice(0, 8));
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
