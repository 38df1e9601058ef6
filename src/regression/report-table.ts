// The terminal rendering of a regression check: one row per agent (or channel) × dimension.
import { uncalibratedLines } from "./agreement-check.ts";
import type { CiReport, DimensionCheck } from "./compare.ts";
import { formatDelta, formatScore } from "./report-markdown.ts";

const STATUS_WORD: Record<DimensionCheck["status"], string> = {
  ok: "ok",
  regression: "REGRESSION",
  noise: "within noise",
  stale: "stale",
  info: "info",
  new: "new",
  "not-evaluated": "not evaluated",
  "no-score": "NO SCORE",
};

export function padColumns(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) for (const [i, c] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, c.length);
  return rows
    .map((row) =>
      row
        .map((c, i) => c.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

export function renderCiTable(report: CiReport): string {
  const out: string[] = [];
  const rows = [["", "dimension", "baseline", "now", "delta", "trials", "status"]];
  for (const s of [...report.agents, ...report.channels])
    for (const d of s.dimensions) {
      const isCount = d.dimension === "ideas_quantity";
      const f = (v: number | null) => (isCount ? String(v ?? "–") : formatScore(v));
      rows.push([
        s.name,
        d.dimension,
        f(d.baseline),
        f(d.now),
        isCount && d.delta !== null ? String(d.delta) : formatDelta(d.delta),
        d.trials.length > 1 ? d.trials.map(f).join(" ") : "",
        STATUS_WORD[d.status],
      ]);
    }
  out.push(padColumns(rows), "");
  for (const s of [...report.agents, ...report.channels])
    for (const d of s.dimensions) {
      if (d.status === "stale") out.push(`stale: ${s.name} ${d.dimension}: ${d.reason}`);
      if (d.status === "noise") out.push(`within noise: ${s.name} ${d.dimension}: ${d.reason}`);
      if (d.status !== "regression") continue;
      out.push(`regression: ${s.name} ${d.dimension} ${formatDelta(d.delta)}`);
      for (const p of d.propositions.filter((x) => x.fell))
        out.push(
          `  ${p.id} ${formatScore(p.baseline)} → ${formatScore(p.now)}${p.recommendations ? `\n    → ${p.recommendations}` : ""}`,
        );
    }
  for (const n of report.notes) out.push(`note: ${n}`);
  const agreement = report.agreement;
  if (agreement)
    for (const line of uncalibratedLines(agreement)) out.push(`not calibrated well enough: ${line}`);
  const c = report.counts;
  const uncalibrated = agreement
    ? `, ${agreement.uncalibrated} not calibrated well enough (κ ≥ ${agreement.min_kappa})`
    : "";
  out.push(
    `${report.passed ? "passed" : "FAILED"}: ${c.compared} compared, ${c.regressions} regressions, ${c.stale} stale (not compared), ${c.noise} within noise${uncalibrated} · ${report.rule}`,
  );
  return `${out.join("\n")}\n`;
}
