// The dashboard's routes: server-rendered pages over the store (no script needed to read them), the
// stylesheet and script under /assets/, and `/` → `/agents`. Bad query input is a 400 page naming the
// parameter; an unknown id a 404 page. The server mounts this behind its token and security headers.
import type { Context } from "hono";
import { Hono } from "hono";
import { agentPage, agentsPage } from "./agents-page.ts";
import { ASSETS } from "./assets.ts";
import { conversationPage, conversationsPage } from "./conversations-page.ts";
import { correctionsPage } from "./corrections-page.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { type Html, html } from "./html.ts";
import { layout } from "./layout.ts";
import { PageInputError, type PageQuery, pageId, parsePageQuery } from "./page-query.ts";
import { runPage, runsPage } from "./runs-page.ts";
import { sessionPage, sessionsPage } from "./sessions-page.ts";

export interface DashboardOptions extends Omit<DashboardContext, "regressionThreshold"> {
  /** A regression is a 0–9 dimension more than this below its baseline. Default 1.0. */
  regressionThreshold?: number;
}

/** Renders a page, turning bad input into a 400 page and a missing row into a 404 page. */
async function render(c: Context, make: (query: PageQuery) => Promise<Html | undefined>): Promise<Response> {
  try {
    const page = await make(parsePageQuery(c.req.query()));
    if (page !== undefined) return c.html(page);
    return c.html(
      layout({
        title: "Not found",
        body: html`<h1>Not found</h1><p>Nothing is stored under <code>${c.req.path}</code>. <a href="/agents">Back to the agents</a>.</p>`,
      }),
      404,
    );
  } catch (error) {
    if (!(error instanceof PageInputError)) throw error;
    return c.html(
      layout({
        title: "Bad request",
        body: html`<h1>Bad request</h1><p>The <code>${error.parameter}</code> parameter: ${error.message.slice(error.parameter.length + 2)}.</p><p><a href="${c.req.path}">Without the filters</a></p>`,
      }),
      400,
    );
  }
}

/**
 * The dashboard as a Hono app: `/agents`, `/agents/:id`, `/runs`, `/runs/:id`, `/sessions`, `/sessions/:id`,
 * `/conversations`, `/conversations/:id`, `/corrections`, and `/assets/*`.
 */
export function dashboardRoutes({ regressionThreshold = 1, ...options }: DashboardOptions): Hono {
  const context: DashboardContext = { ...options, regressionThreshold };
  const app = new Hono();
  app.get("/", (c) => c.redirect("/agents", 302));
  // No icon: an empty answer, so that a browser's request for one is not a 404 on every page.
  app.get("/favicon.ico", (c) => c.body(null, 204, { "Cache-Control": "public, max-age=86400" }));
  for (const [name, asset] of Object.entries(ASSETS))
    app.get(`/assets/${name}`, (c) => c.body(asset.body, 200, { "Content-Type": asset.type }));
  app.get("/agents", (c) => render(c, (q) => agentsPage(context, q)));
  app.get("/agents/:id", (c) => render(c, (q) => agentPage(context, c.req.param("id"), q)));
  app.get("/runs", (c) => render(c, (q) => runsPage(context, q)));
  app.get("/runs/:id", (c) => render(c, (q) => runPage(context, pageId(c.req.param("id")), q)));
  app.get("/sessions", (c) => render(c, (q) => sessionsPage(context, q)));
  app.get("/sessions/:id", (c) => render(c, () => sessionPage(context, pageId(c.req.param("id")))));
  app.get("/conversations", (c) => render(c, (q) => conversationsPage(context, q)));
  app.get("/conversations/:id", (c) => render(c, () => conversationPage(context, pageId(c.req.param("id")))));
  app.get("/corrections", (c) => render(c, (q) => correctionsPage(context, q)));
  return app;
}
