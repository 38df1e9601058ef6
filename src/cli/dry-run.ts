// `--dry-run`: what an evaluation would cost — judge requests and calls, tokens, cost where a price is
// known — printed without calling the judge or writing anything. A request is one sent to a provider, as in
// every document and table: a fixture judge's lookups and the verdict cache's answers are not requests.
import { planSize } from "../engine/index.ts";
import { type EvaluationPlan, estimatePlan } from "../personas/index.ts";
import { cost, priceFor } from "./prices.ts";
import type { Settings } from "./settings.ts";

export interface DryRunReport {
  judge: string;
  requests: number;
  calls: number;
  verdicts: number;
  input_tokens: number;
  output_tokens: number;
  cached?: { requests: number; verdicts: number };
  cost_usd?: number;
  by_dimension: Record<string, { requests: number; verdicts: number }>;
}

export function dryRunReport(
  plan: EvaluationPlan,
  {
    settings,
    live,
    judgeName,
    skip,
    cached,
  }: {
    settings: Settings;
    live: boolean;
    judgeName: string;
    skip?: ReadonlySet<string>;
    cached?: { requests: number; verdicts: number };
  },
): DryRunReport {
  const estimate = estimatePlan(plan, skip);
  const report: DryRunReport = {
    judge: judgeName,
    requests: live ? estimate.requests : 0,
    calls: live ? estimate.calls : 0,
    verdicts: estimate.verdicts + planSize(plan).trivial + (cached?.verdicts ?? 0),
    input_tokens: live ? estimate.usage.input_tokens : 0,
    output_tokens: live ? estimate.usage.output_tokens : 0,
    // Requests are what a provider would receive: a fixture judge's lookups are none, here as in the total.
    by_dimension: live
      ? estimate.byDimension
      : Object.fromEntries(
          Object.entries(estimate.byDimension).map(([d, x]) => [d, { requests: 0, verdicts: x.verdicts }]),
        ),
  };
  if (cached) report.cached = cached;
  const price = priceFor(settings.judge.model, settings.prices);
  if (price)
    report.cost_usd = cost({ input_tokens: report.input_tokens, output_tokens: report.output_tokens }, price);
  return report;
}

export function printDryRun(
  plan: EvaluationPlan,
  options: {
    settings: Settings;
    live: boolean;
    judgeName: string;
    skip?: ReadonlySet<string>;
    cached?: { requests: number; verdicts: number };
    format?: string;
  },
): DryRunReport {
  const report = dryRunReport(plan, options);
  if (options.format === "json") {
    process.stdout.write(`${JSON.stringify({ dry_run: report }, null, 2)}\n`);
    return report;
  }
  const lines = [
    `Dry run · judge ${report.judge} · nothing was judged or written`,
    "",
    ...Object.entries(report.by_dimension).map(
      ([d, x]) =>
        `  ${d.padEnd(16)} ${String(x.requests).padStart(7)} requests ${String(x.verdicts).padStart(8)} verdicts`,
    ),
    "",
    `judge requests: ${report.requests}   model calls: ${report.calls}   verdicts: ${report.verdicts}`,
    `estimated tokens: ${report.input_tokens} input + ${report.output_tokens} output`,
  ];
  if (report.cached)
    lines.push(
      `verdict cache: answers ${report.cached.requests} more requests (${report.cached.verdicts} verdicts), not counted above`,
    );
  if (!options.live) lines.push("fixture judge: no model calls and no cost");
  if (report.cost_usd !== undefined) lines.push(`estimated cost: $${report.cost_usd.toFixed(4)}`);
  else
    lines.push(
      `estimated cost: unknown (add a price for ${options.settings.judge.model} under prices: in dramaturg.yaml)`,
    );
  process.stdout.write(`${lines.join("\n")}\n`);
  return report;
}
