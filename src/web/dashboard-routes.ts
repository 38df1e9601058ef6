// The dashboard's routes: server-rendered pages over the store (no script needed to read them), the
// stylesheet and script under /assets/, and `/` → `/agents`. Bad query input is a 400 page naming the
// parameter; an unknown id a 404 page. The server mounts this behind its token and security headers.
import type { Context } from "hono";
import { Hono } from "hono";
import { evaluationKinds } from "../kinds/index.ts";
import { agentPage, agentsPage } from "./agents-page.ts";
import { ASSETS } from "./assets.ts";
import { comparePage } from "./compare-page.ts";
import { correctionsPage } from "./corrections-page.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { type Html, html } from "./html.ts";
import { judgeWindowRoute } from "./judge-window.ts";
import { labellingRoutes } from "./labelling-page.ts";
import { layout, withAccount } from "./layout.ts";
import { decodeCursor, PageInputError, type PageQuery, pageId, parsePageQuery } from "./page-query.ts";
import { findRun } from "./run-ref.ts";
import { runPage, runsPage } from "./runs-page.ts";
import { searchPage } from "./search-page.ts";
import { kindPages } from "./stored-kind-pages.ts";

export interface DashboardOptions extends Omit<DashboardContext, "regressionThreshold"> {
  /** A regression is a 0–9 dimension more than this below its baseline. Default 1.0. */
  regressionThreshold?: number;
  /** Visitors sign in (the server has a token): every page's navigation ends with a sign-out link. */
  signOut?: boolean;
}

/** Renders a page, turning bad input into a 400 page and a missing row into a 404 page. */
async function render(
  c: Context,
  make: (query: PageQuery) => Promise<Html | undefined>,
  signOut = false,
): Promise<Response> {
  const page = (markup: Html, status: 200 | 400 | 404 = 200) => c.html(withAccount(markup, signOut), status);
  try {
    const query = parsePageQuery(c.req.query());
    // A cursor this dashboard did not give is refused on every page, as the API refuses it, even on
    // pages that do not page (an agent's), rather than silently ignored.
    decodeCursor(query.cursor);
    const made = await make(query);
    if (made !== undefined) return page(made);
    return page(
      layout({
        title: "Not found",
        body: html`<h1>Not found</h1><p>Nothing is stored under <code>${c.req.path}</code>. <a href="/agents">Back to the agents</a>.</p>`,
      }),
      404,
    );
  } catch (error) {
    if (!(error instanceof PageInputError)) throw error;
    // A bad path id has no filters to drop: the way out is the section's list (`/runs/x` → `/runs`).
    const back = error.parameter === "id" ? `/${c.req.path.split("/")[1] ?? ""}` : c.req.path;
    return page(
      layout({
        title: "Bad request",
        body: html`<h1>Bad request</h1><p>The <code>${error.parameter}</code> parameter: ${error.message.slice(error.parameter.length + 2)}.</p><p><a href="${back}">${error.parameter === "id" ? "Back to the list" : "Without the filters"}</a></p>`,
      }),
      400,
    );
  }
}

/**
 * The dashboard as a Hono app: `/agents`, `/agents/:id`, `/runs`, `/runs/:id`, `/compare`, each stored kind's
 * `/<section>` and `/<section>/:id` (`/sessions`, `/conversations`, `/calibrations`, `/simulations`…),
 * `/corrections`, `/search`, and `/assets/*`.
 */
export function dashboardRoutes({
  regressionThreshold = 1,
  signOut = false,
  ...options
}: DashboardOptions): Hono {
  const context: DashboardContext = { ...options, regressionThreshold };
  const show = (c: Context, make: (query: PageQuery) => Promise<Html | undefined>) =>
    render(c, make, signOut);
  const app = new Hono();
  app.get("/", (c) => c.redirect("/agents", 302));
  // No icon: an empty answer, so that a browser's request for one is not a 404 on every page.
  app.get("/favicon.ico", (c) => c.body(null, 204, { "Cache-Control": "public, max-age=86400" }));
  for (const [name, asset] of Object.entries(ASSETS))
    app.get(`/assets/${name}`, (c) => c.body(asset.body, 200, { "Content-Type": asset.type }));
  app.get("/agents", (c) => show(c, (q) => agentsPage(context, q, c.req.query())));
  app.get("/agents/:id", (c) => show(c, (q) => agentPage(context, c.req.param("id"), q)));
  app.get("/runs", (c) => show(c, (q) => runsPage(context, q, c.req.query())));
  app.get("/runs/:id/window", (c) => judgeWindowRoute(c, context, show));
  // A run by its uuid or its first 8+ characters, as the pages show it (a shared prefix is a 400 page).
  app.get("/runs/:id", (c) =>
    show(c, async (q) => {
      const run = await findRun(context.store, c.req.param("id"), "id");
      return run && runPage(context, run.id, q, c.req.query());
    }),
  );
  app.get("/compare", (c) => show(c, () => comparePage(context, c.req.query())));
  // Each stored kind read back by evaluation: its list and an evaluation's page (sessions, conversations…).
  for (const kind of evaluationKinds()) {
    const pages = kindPages(kind);
    app.get(`/${kind.section}`, (c) => show(c, (q) => pages.list(context, q, c.req.query())));
    app.get(`/${kind.section}/:id`, (c) =>
      show(c, () => pages.detail(context, pageId(c.req.param("id")), c.req.query())),
    );
  }
  app.get("/corrections", (c) => show(c, (q) => correctionsPage(context, q)));
  app.get("/search", (c) => show(c, () => searchPage(context, c.req.query())));
  app.route("/", labellingRoutes(context, signOut));
  return app;
}
