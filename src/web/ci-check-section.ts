// The persona check (`dramaturg ci`) as the head of its HTML report: each agent's and channel's dimensions
// against their baselines, the regressions first with the propositions that fell, and the check's notes.
import {
  type CiDashboardLinks,
  type CiReport,
  type DimensionCheck,
  dashboardLink,
  dimensionVerdictsPath,
  propositionVerdictsPath,
  runPagePath,
  type SubjectCheck,
} from "../regression/index.ts";
import { score9 } from "./format.ts";
import { type Html, html } from "./html.ts";

const STATUS: Record<DimensionCheck["status"], string> = {
  ok: "ok",
  regression: "regression",
  noise: "within noise",
  stale: "stale",
  info: "info",
  new: "new",
  "not-evaluated": "not evaluated",
  "no-score": "no score",
};

/** Regressions first, then what could not be compared, then the rest; in the report's order within each. */
const RANK: Record<DimensionCheck["status"], number> = {
  regression: 0,
  "no-score": 1,
  noise: 2,
  stale: 3,
  new: 4,
  "not-evaluated": 5,
  ok: 6,
  // Counts (ideas) are reported, never compared: last.
  info: 7,
};

const signed = (delta: number | null, count: boolean) =>
  delta === null
    ? "—"
    : `${delta > 0 ? "+" : delta < 0 ? "−" : "±"}${count ? Math.abs(delta) : Math.abs(delta).toFixed(1)}`;

/**
 * The check's table. `runOf` names the run page of an agent (its anchor in the report), when it has one.
 * With `links` (the dashboard's URL), each agent's run id, regressed dimension and fallen proposition links
 * to the run page's verdicts of it on the dashboard.
 */
export function ciCheckSection(
  report: CiReport,
  runOf: (agentId: string) => string | undefined,
  links?: CiDashboardLinks,
): Html {
  const rows = [...report.agents, ...report.channels]
    .flatMap((subject) => subject.dimensions.map((dimension) => ({ subject, dimension })))
    .map((row, order) => ({ ...row, order }))
    .sort((a, b) => RANK[a.dimension.status] - RANK[b.dimension.status] || a.order - b.order);
  const name = (s: SubjectCheck) => {
    const run = s.kind === "agent" ? runOf(s.id) : undefined;
    const named = run ? html`<a href="${run}">${s.name}</a>` : s.name;
    const online = dashboardRun(s);
    return online
      ? html`${named} <span class="run-id">run <a href="${dashboardLink(online.url, runPagePath(online.runId))}">${online.runId.slice(0, 8)}</a></span>`
      : named;
  };
  const dashboardRun = (s: SubjectCheck) => {
    const runId = links && s.kind === "agent" ? links.runs.get(s.id) : undefined;
    return links && runId !== undefined ? { url: links.url, runId } : undefined;
  };
  return html`<section class="ci-check">
<h2>Persona check: ${report.passed ? "passed" : `${report.counts.regressions} regression${report.counts.regressions === 1 ? "" : "s"}`}</h2>
<p class="muted">The rule: ${report.rule}.</p>
<table class="ci-check-table"><thead><tr><th>Agent or channel</th><th>Dimension</th><th class="num">Baseline</th><th class="num">Now</th><th class="num">Δ</th><th>Status</th></tr></thead>
<tbody>${rows.map(({ subject, dimension: d }) => {
    const count = d.dimension === "ideas_quantity";
    const value = (v: number | null) => (count ? (v === null ? "—" : String(v)) : score9(v));
    const fell = d.propositions.filter((p) => p.fell);
    const online = dashboardRun(subject);
    const at = (path: string) => online && dashboardLink(online.url, path);
    const dimension =
      online && d.status === "regression"
        ? html`<a href="${at(dimensionVerdictsPath(online.runId, d.dimension))}">${d.dimension}</a>`
        : d.dimension;
    return html`<tr class="${d.status === "regression" ? "regression" : ""}">
<td>${name(subject)}</td><td>${dimension}</td><td class="num">${value(d.baseline)}</td><td class="num">${value(d.now)}</td><td class="num">${signed(d.delta, count)}</td>
<td><span class="status ${d.status}">${STATUS[d.status]}</span>${d.reason ? html` <span class="muted">${d.reason}</span>` : ""}${
      fell.length
        ? html`<ul class="fell">${fell.map(
            (p) =>
              html`<li>${
                online
                  ? html`<a href="${at(propositionVerdictsPath(online.runId, d.dimension, p.id))}"><code>${p.id}</code></a>`
                  : html`<code>${p.id}</code>`
              } ${score9(p.baseline)} → ${score9(p.now)}${p.recommendations ? html`<br><span class="muted">${p.recommendations}</span>` : ""}</li>`,
          )}</ul>`
        : ""
    }</td>
</tr>`;
  })}</tbody></table>
${report.notes.length ? html`<ul class="notes">${report.notes.map((n) => html`<li>${n}</li>`)}</ul>` : ""}
</section>`;
}
