// The pull-request comment of `dramaturg ci --markdown`: agents × dimensions with baseline, now and delta,
// what fell and what to do about it. A hidden marker lets the workflow find and update its one comment.
import { escapeMarkdown, markdownTable } from "../core/index.ts";
import { uncalibratedLines } from "./agreement-check.ts";
import type { CiReport, DimensionCheck, SubjectCheck } from "./compare.ts";
import {
  dashboardLink,
  dimensionVerdictsPath,
  propositionVerdictsPath,
  runPagePath,
} from "./verdict-links.ts";

/**
 * Where the dashboard that holds the check's runs is (`dramaturg ci --dashboard-url`): with it, the reports
 * link each agent's run, each regressed dimension and each proposition that fell to the run page's verdicts.
 */
export interface CiDashboardLinks {
  /** The dashboard's base URL, http(s). */
  url: string;
  /** Agent id → the id of its run in this check (channels have no run page). */
  runs: ReadonlyMap<string, string>;
}

/** A dashboard link as a Markdown link target: nothing in it can end the link or a table cell. */
const markdownUrl = (url: string) =>
  url.replace(/[()<>|\\\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);

/** The links of one subject's run, when the report has a dashboard and the subject a run there. */
function linksOf(links: CiDashboardLinks | undefined, s: SubjectCheck) {
  const runId = links && s.kind === "agent" ? links.runs.get(s.id) : undefined;
  if (!links || runId === undefined) return undefined;
  const at = (path: string) => markdownUrl(dashboardLink(links.url, path));
  return {
    run: `[\`${runId.slice(0, 8)}\`](${at(runPagePath(runId))})`,
    dimension: (d: string) => at(dimensionVerdictsPath(runId, d)),
    proposition: (d: string, p: string) => at(propositionVerdictsPath(runId, d, p)),
  };
}

/** The hidden first line the workflow searches for to update its comment instead of adding another. */
export const PR_COMMENT_MARKER = "<!-- dramaturg-persona-check -->";

const AGENT_COLUMNS = ["adherence", "consistency", "fluency"] as const;

/** Agent-controlled text (names, ids, recommendations) can hold Markdown or HTML; it is shown as text. */
export { escapeMarkdown };

export function formatScore(value: number | null): string {
  return value === null ? "–" : value.toFixed(2);
}

export function formatDelta(value: number | null): string {
  if (value === null) return "–";
  if (Math.abs(value) < 0.005) return "±0.00";
  return value > 0 ? `+${value.toFixed(2)}` : `−${Math.abs(value).toFixed(2)}`;
}

export const STATUS_MARK: Record<DimensionCheck["status"], string> = {
  ok: "✅",
  regression: "❌",
  noise: "〰️",
  stale: "⚠ stale",
  info: "ℹ️",
  new: "🆕",
  "not-evaluated": "–",
  "no-score": "⚠ no score",
};

function cell(d: DimensionCheck | undefined, link?: (dimension: string) => string): string {
  if (!d) return "";
  if (link && d.status === "regression") return `[${cell(d)}](${link(d.dimension)})`;
  if (d.status === "not-evaluated") return `${formatScore(d.baseline)} → not evaluated`;
  if (d.dimension === "ideas_quantity")
    return `${STATUS_MARK[d.status]} ${d.baseline ?? "–"} → ${d.now ?? "–"} ideas`;
  return `${STATUS_MARK[d.status]} ${formatScore(d.baseline)} → ${formatScore(d.now)} (${formatDelta(d.delta)})`;
}

function headline(report: CiReport): string {
  const { regressions, stale, noise, no_score } = report.counts;
  const extras = [
    stale ? `⚠ ${stale} stale` : "",
    noise ? `〰️ ${noise} within judge noise` : "",
    no_score ? `⚠ ${no_score} not scored` : "",
    report.agreement?.uncalibrated ? `❌ ${report.agreement.uncalibrated} not calibrated well enough` : "",
  ].filter(Boolean);
  const main =
    regressions > 0
      ? `❌ Persona check: ${regressions} regression${regressions === 1 ? "" : "s"}`
      : "✅ Persona check: no regressions";
  return `### ${main}${extras.length ? ` · ${extras.join(" · ")}` : ""}`;
}

function fellSection(subjects: SubjectCheck[], links: CiDashboardLinks | undefined): string[] {
  const out: string[] = [];
  for (const s of subjects)
    for (const d of s.dimensions) {
      if (d.status !== "regression" && d.status !== "noise") continue;
      const fell = d.propositions.filter((p) => p.fell).sort((a, b) => (a.delta ?? 0) - (b.delta ?? 0));
      const run = linksOf(links, s);
      const dimension = run ? `[${d.dimension}](${run.dimension(d.dimension)})` : d.dimension;
      out.push(
        `**${escapeMarkdown(s.name)} · ${dimension}** ${formatScore(d.baseline)} → ${formatScore(d.now)} (${formatDelta(d.delta)})${d.status === "noise" ? " — within the judge's noise, not failing" : ""}${run ? ` · run ${run.run}` : ""}`,
      );
      out.push("");
      for (const p of fell) {
        const id = `\`${escapeMarkdown(p.id)}\``;
        out.push(
          `- ${run ? `[${id}](${run.proposition(d.dimension, p.id)})` : id} ${formatScore(p.baseline)} → ${formatScore(p.now)} (${formatDelta(p.delta)})${p.recommendations ? ` — ${escapeMarkdown(p.recommendations)}` : ""}`,
        );
      }
      if (fell.length) out.push("");
    }
  return out;
}

/**
 * The whole comment, starting with the marker line. With `links`, each agent's run (its short id), each
 * regressed dimension and each proposition that fell link to the dashboard; without, no link at all.
 */
export function renderCiMarkdown(report: CiReport, links?: CiDashboardLinks): string {
  const out: string[] = [PR_COMMENT_MARKER, headline(report), ""];
  if (report.agents.length) {
    out.push(
      ...markdownTable(
        ["agent", ...AGENT_COLUMNS].map((title) => ({ title })),
        report.agents.map((a) => {
          const run = linksOf(links, a);
          return [
            `${escapeMarkdown(a.name)}${run ? ` · run ${run.run}` : ""}`,
            ...AGENT_COLUMNS.map((c) =>
              cell(
                a.dimensions.find((d) => d.dimension === c),
                run?.dimension,
              ),
            ),
          ];
        }),
      ),
      "",
    );
  }
  if (report.channels.length) {
    out.push(
      ...markdownTable(
        ["channel", "voice divergence", "ideas"].map((title) => ({ title })),
        report.channels.map((c) => [
          escapeMarkdown(c.name),
          cell(c.dimensions.find((d) => d.dimension === "convergence")),
          cell(c.dimensions.find((d) => d.dimension === "ideas_quantity")),
        ]),
      ),
      "",
    );
  }
  const fell = fellSection([...report.agents, ...report.channels], links);
  if (fell.length) out.push("#### What fell, and what to do", "", ...fell);
  const stale = [...report.agents, ...report.channels].filter(
    (s) => s.stale.length || s.dimensions.some((d) => d.status === "stale"),
  );
  if (stale.length) {
    out.push("#### ⚠ Stale baselines (not compared, not a regression)", "");
    for (const s of stale) {
      const reasons = s.stale.length
        ? s.stale
        : s.dimensions.filter((d) => d.status === "stale").map((d) => `${d.dimension}: ${d.reason}`);
      out.push(`- **${escapeMarkdown(s.name)}**: ${escapeMarkdown(reasons.join("; "))}`);
    }
    out.push("", "If the change is intended, run `dramaturg baseline` and commit the new baselines.", "");
  }
  const agreement = report.agreement;
  if (agreement?.uncalibrated) {
    out.push(
      `#### ❌ Judge not calibrated well enough (κ ≥ ${agreement.min_kappa} against people required)`,
      "",
      ...uncalibratedLines(agreement).map((line) => `- ${escapeMarkdown(line)}`),
      "",
      "Label these propositions and run `dramaturg calibrate`, or lower `--min-agreement`.",
      "",
    );
  }
  for (const note of report.notes) out.push(`> ${escapeMarkdown(note)}`);
  if (report.notes.length) out.push("");
  const j = report.judge;
  out.push(
    `<sub>${escapeMarkdown(report.rule)}. Judge \`${j.provider}:${j.model.replace(/`/g, "'")}\` (${j.mode}) · evaluation \`${report.evaluation_id.slice(0, 8)}\` · ❌ regression · ⚠ stale · 〰️ within noise · ✅ ok</sub>`,
  );
  return `${out.join("\n")}\n`;
}
