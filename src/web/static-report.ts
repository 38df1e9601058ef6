// The static report: one self-contained HTML file of an evaluation, to attach to a CI run — the same pages
// and drill-down as the dashboard (rendered by the dashboard itself, so the two never drift apart), with the
// stylesheet inline, nothing fetched from the network, links between its pages made anchors, and one small
// inline script (allowed by its hash) that sorts and filters the verdict tables in place.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { storedKindOf } from "../kinds/index.ts";
import type { BaselineFolder, CiDashboardLinks, CiReport } from "../regression/index.ts";
import type { Store } from "../store/index.ts";
import { ASSETS } from "./assets.ts";
import { ciCheckSection } from "./ci-check-section.ts";
import { dashboardRoutes } from "./dashboard-routes.ts";
import { score9 } from "./format.ts";
import { type Html, html } from "./html.ts";

export interface StaticReportOptions {
  /** The open store the evaluation is in. */
  store: Store;
  /** The evaluations to report, in order: persona evaluations (each of their runs), and any stored kind's with a page. */
  evaluationIds: readonly string[];
  /** The document's title. Default "Dramaturg report". */
  title?: string;
  /** The project's regression threshold, as the dashboard uses it. */
  regressionThreshold?: number;
  /** A persona check's result (`dramaturg ci`), shown first. */
  ciReport?: CiReport;
  /** Where the check's runs are on a dashboard (`ci --dashboard-url`): its table links there. */
  dashboardLinks?: CiDashboardLinks;
  /** The baselines the check compared with: a run page then says its agent has one. */
  baselines?: BaselineFolder;
}

/** What the report reads of a persona evaluation's result document. */
interface PersonaRuns {
  runs?: {
    run_id?: unknown;
    agent_id?: unknown;
    name?: unknown;
    overall_score?: unknown;
    dimensions?: unknown;
  }[];
}

/**
 * The report's one script (`assets/static-report.js`): the Failures only switch and the sort links in place.
 * It is inline, as the file must stand alone, and allowed by its hash alone.
 */
const SCRIPT = readFileSync(new URL("./assets/static-report.js", import.meta.url), "utf8");
const SCRIPT_HASH = `sha256-${createHash("sha256").update(SCRIPT).digest("base64")}`;

/**
 * The policy of the file itself: no request of any kind; only the inline stylesheet, data: images and the
 * one script of the hash above. Opened from disk or an artifact store, it can do nothing but show.
 */
const POLICY = `default-src 'none'; style-src 'unsafe-inline'; script-src '${SCRIPT_HASH}'; img-src data:; base-uri 'none'; form-action 'none'`;

interface ReportedRun {
  id: string;
  agentId: string;
  name: string;
  overall: number | null;
  dimensions: Record<string, number | null>;
}

/** The pages of one evaluation, as the dashboard's paths (a persona evaluation's runs, or the evaluation itself), and a persona evaluation's runs. */
async function pagesOf(
  store: Store,
  id: string,
): Promise<{ paths: string[]; labels: string[]; runs: ReportedRun[] }> {
  const row = await store.evaluations.get(id);
  if (!row) throw new RangeError(`no evaluation ${id} in the store`);
  const kind = storedKindOf(row.kind);
  if (kind?.readBack === "evaluation" && kind.htmlReport) {
    const label = `${kind.noun.charAt(0).toUpperCase()}${kind.noun.slice(1)} ${id.slice(0, 8)}`;
    return { paths: [`/${kind.section}/${id}`], labels: [label], runs: [] };
  }
  const result = (await store.evaluations.result(id)) as PersonaRuns | undefined;
  const runs = (result?.runs ?? []).flatMap((r): ReportedRun[] => {
    if (typeof r.run_id !== "string" || typeof r.agent_id !== "string") return [];
    const dimensions: Record<string, number | null> = {};
    for (const [d, v] of Object.entries((r.dimensions ?? {}) as Record<string, { score?: unknown }>))
      dimensions[d] = typeof v?.score === "number" ? v.score : null;
    const overall = typeof r.overall_score === "number" ? r.overall_score : null;
    return [{ id: r.run_id, agentId: r.agent_id, name: String(r.name ?? r.agent_id), overall, dimensions }];
  });
  return {
    paths: runs.map((r) => `/runs/${r.id}`),
    labels: runs.map((r) => `${r.name}: run ${r.id.slice(0, 8)}`),
    runs,
  };
}

/** The persona scores at a glance: one row per agent, linking to its run's page below. */
function personaSummary(runs: readonly ReportedRun[]): Html | "" {
  if (runs.length === 0) return "";
  const dimensions = [...new Set(runs.flatMap((r) => Object.keys(r.dimensions)))];
  return html`<section class="report-summary"><h2>Scores</h2>
<table><thead><tr><th>Agent</th>${dimensions.map((d) => html`<th class="num">${d}</th>`)}<th class="num">Overall</th></tr></thead>
<tbody>${runs.map(
    (r) =>
      html`<tr><td><a href="/runs/${r.id}">${r.name}</a></td>${dimensions.map((d) => html`<td class="num">${score9(r.dimensions[d])}</td>`)}<td class="num">${score9(r.overall)}</td></tr>`,
  )}</tbody></table></section>`;
}

/** A page's anchor in the report: its path, made an id. */
const anchorOf = (path: string) => `page${path.replaceAll("/", "-")}`;

/**
 * A page's markup made the report's, before its links: forms and scripts go (there is no server to answer
 * them), and ids get the page's `prefix` — two run pages in one document each have their own `window-1`. A run
 * page's All / Failures only switch becomes a control of the report's script (its verdict rows say which fail);
 * another page's switch goes, since no script can filter it and its link could only lead to the page's top.
 * This reads markup made by our own templates, where agent text is escaped, so no tag in it comes from an agent.
 */
function staticIds(main: string, prefix: string, runPage: boolean): string {
  return main
    .replace(/<form\b[\s\S]*?<\/form>/g, "")
    .replace(/<script\b[\s\S]*?<\/script>/g, "")
    .replace(/<p class="view-switch">([\s\S]*?)<\/p>/g, (_, inner: string) =>
      runPage
        ? `<p class="view-switch" id="view-switch">${inner.replace(
            /<a href="([^"]*)"/g,
            (_a, href: string) =>
              `<a href="#view-switch" data-report-failures="${/[?&]failures=1(?:&|$)/.test(href.replace(/&amp;/g, "&")) ? "1" : "0"}"`,
          )}</p>`
        : "",
    )
    .replace(/\sid="([^"]*)"/g, (_, id: string) => ` id="${prefix}${id}"`);
}

/**
 * The page's links made the report's: a link to another page of the report becomes its anchor — at the place
 * it pointed to (a table, a dimension's verdicts) when the report has that place, so that a sort link or "all
 * verdicts" keeps the reader at the table instead of the page's top; any other link to the dashboard (filters,
 * other agents) loses its href and stays as text. A sort link is also a control of the report's script.
 */
function staticLinks(
  main: string,
  anchors: ReadonlyMap<string, string>,
  ids: ReadonlySet<string>,
  prefix = "",
): string {
  return main.replace(/\shref="([^"]*)"/g, (whole, href: string) => {
    if (/^(?:https?:|mailto:)/i.test(href)) return whole;
    if (href.startsWith("#")) return ` href="#${prefix}${href.slice(1)}"`;
    const [target = "", fragment] = href.replace(/&amp;/g, "&").split("#");
    const [path = "", search = ""] = target.split("?");
    const anchor = anchors.get(path);
    if (anchor === undefined) return "";
    const query = new URLSearchParams(search);
    const dimension = query.get("dimension");
    const place = [fragment && `${anchor}-${fragment}`, dimension && `${anchor}-verdicts-${dimension}`].find(
      (id) => id && ids.has(id),
    );
    const sort = query.get("sort");
    return ` href="#${place || anchor}"${sort ? ` data-report-sort="${sort.replace(/[^\w-]/g, "")}"` : ""}`;
  });
}

/** The ids a page's markup defines. */
const idsOf = (markup: string) => [...markup.matchAll(/\sid="([^"]*)"/g)].map((m) => m[1]!);

/** The `<main>` of a dashboard page (the layout's frame, navigation and script left out). */
function mainOf(page: string): string {
  const match = page.match(/<main>([\s\S]*)<\/main>/);
  if (!match?.[1]) throw new Error("a dashboard page without its <main>");
  return match[1];
}

/**
 * One HTML document of the evaluations' pages. Rendered by the dashboard's own routes over the store, so
 * what a CI artifact shows is what `dramaturg serve` shows.
 *
 * ```ts
 * writeFileSync("report.html", await staticReport({ store, evaluationIds: [result.evaluation_id] }));
 * ```
 */
export async function staticReport({
  store,
  evaluationIds,
  title = "Dramaturg report",
  regressionThreshold,
  ciReport,
  dashboardLinks,
  baselines,
}: StaticReportOptions): Promise<string> {
  const pages = await Promise.all(evaluationIds.map((id) => pagesOf(store, id)));
  const paths = pages.flatMap((p) => p.paths);
  const labels = pages.flatMap((p) => p.labels);
  const runs = pages.flatMap((p) => p.runs);
  const anchors = new Map(paths.map((p) => [p, anchorOf(p)]));
  const app = dashboardRoutes({ store, regressionThreshold, ...(baselines ? { baselines } : {}) });
  const mains: string[] = [];
  for (const path of paths) {
    // A run page's judge windows written in (the dashboard loads them on demand from the server).
    const asked = path.startsWith("/runs/") ? `${path}?windows=inline` : path;
    const response = await app.request(asked, { headers: { accept: "text/html" } });
    if (response.status !== 200)
      throw new Error(`the dashboard could not render ${path} (${response.status})`);
    mains.push(staticIds(mainOf(await response.text()), `${anchorOf(path)}-`, path.startsWith("/runs/")));
  }
  const ids = new Set([...paths.map(anchorOf), ...mains.flatMap(idsOf)]);
  const sections = paths.map(
    (path, i) =>
      `<section class="report-page" id="${anchorOf(path)}">\n${staticLinks(mains[i]!, anchors, ids, `${anchorOf(path)}-`)}\n</section>`,
  );
  const runOf = (agentId: string) => {
    const run = runs.find((r) => r.agentId === agentId);
    return run && `/runs/${run.id}`;
  };
  const head = staticLinks(
    `${ciReport ? ciCheckSection(ciReport, runOf, dashboardLinks) : ""}${ciReport ? "" : personaSummary(runs)}`,
    anchors,
    ids,
  );
  const contents =
    paths.length > 1
      ? html`<nav class="report-contents" aria-label="contents"><ol>${paths.map(
          (p, i) => html`<li><a href="#${anchorOf(p)}">${labels[i]}</a></li>`,
        )}</ol></nav>`
      : "";
  // The stylesheet is the package's own file; "</style" cannot occur in it, but it is checked all the same.
  const css = ASSETS["dashboard.css"]?.body ?? "";
  if (/<\/style/i.test(css)) throw new Error("the stylesheet cannot be inlined");
  if (/<\/script/i.test(SCRIPT)) throw new Error("the script cannot be inlined");
  return `${html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">`}
<meta http-equiv="Content-Security-Policy" content="${POLICY}">${html`
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>`}
<style>
${css}
</style>
</head>
<body class="static-report">
<header class="top"><span class="brand">Dramaturg</span></header>
<main>
${html`<h1>${title}</h1>${contents}`}
${head}
${sections.join("\n")}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
