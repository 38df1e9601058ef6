// The HTTP app over an open store: security headers, the Host check, the token (when set), the body limit,
// the JSON API and its OpenAPI document, and the dashboard's pages. A Hono app: tests call `app.request()`.

import { OpenAPIHono } from "@hono/zod-openapi";
import { compress } from "hono/compress";
import type { JudgeOption, JudgeSettings } from "../engine/index.ts";
import type { BaselineFolder } from "../regression/index.ts";
import type { Store } from "../store/index.ts";
import { dashboardRoutes } from "../web/index.ts";
import { ApiError } from "./api-error.ts";
import { requireToken } from "./auth.ts";
import { DEFAULT_BODY_LIMIT, limitBodies } from "./body-limit.ts";
import { errorHandler } from "./error-handler.ts";
import { acceptedHosts, checkHostHeader } from "./host-check.ts";
import { labelRoutes } from "./labels-api.ts";
import { agentRoutes } from "./routes/agents.ts";
import { correctionRoutes } from "./routes/corrections.ts";
import { loginRoutes } from "./routes/login.ts";
import { runRoutes } from "./routes/runs.ts";
import { searchRoutes } from "./routes/search.ts";
import { sessionAnalyzeRoutes } from "./routes/sessions.ts";
import { storedKindRoutes } from "./routes/stored-kinds.ts";
import { traceRoutes } from "./routes/traces.ts";
import { securityHeaders } from "./security-headers.ts";
import type { ServerContext } from "./server-context.ts";
import { sessionCookies } from "./session-cookie.ts";
import { SignInThrottle } from "./sign-in-throttle.ts";
import { checkToken } from "./token.ts";
import { validationHook } from "./validation-hook.ts";

export interface ServerAppOptions {
  /** The open store the API reads and where posted sessions and traces are kept. The caller closes it. */
  store: Store;
  /**
   * When set (32 characters at least), every request but `/login` and `/logout` needs it: a bearer header,
   * or a session cookie from signing in.
   */
  token?: string;
  /**
   * The address the server is bound to: requests must name it, a loopback name or an allowed host in their
   * Host header, else 421 (DNS rebinding). A wildcard (0.0.0.0, ::) adds no name. Default: loopback only —
   * which `app.request("/path")` is.
   */
  host?: string;
  /** More names the Host header may carry, each `name` (any port) or `name:port`: the server's public names. */
  allowedHosts?: readonly string[];
  /** How long a sign-in lasts, in seconds. Default 43,200 (12 h). */
  sessionTtl?: number;
  /** The clock of session expiry and the sign-in throttle, in milliseconds; tests pass one they move. */
  now?: () => number;
  /** Largest request body in bytes; larger ones get 413. Default 10 MiB. */
  bodyLimit?: number;
  /** The judge of posted sessions and traces (`?judge=none` skips it); default none: deterministic parts only. */
  judge?: JudgeOption | "none";
  judgeSettings?: JudgeSettings;
  /** The project's baselines, which the dashboard's drift charts draw and mark regressions against. */
  baselines?: BaselineFolder;
  /** A regression is a 0–9 dimension more than this below its baseline (the project's). Default 1.0. */
  regressionThreshold?: number;
  /**
   * The Langfuse host the traces are in, for the dashboard's links to a session's traces. Default
   * LANGFUSE_BASE_URL or LANGFUSE_HOST from the environment (a host, no key); none: no links.
   */
  langfuseHost?: string;
  /**
   * The Phoenix host, for links to the traces of a session analysis exported there (by the export ledger).
   * Default PHOENIX_COLLECTOR_ENDPOINT from the environment; none: no links.
   */
  phoenixHost?: string;
  /** The export ledger beside the store (`dramaturg serve` gives it): which runs were exported where. */
  exportLedger?: string;
}

/** The server's routes, in the order they are matched; each is a sub-app with its OpenAPI routes. */
const ROUTES = [
  runRoutes,
  agentRoutes,
  storedKindRoutes,
  sessionAnalyzeRoutes,
  correctionRoutes,
  traceRoutes,
  searchRoutes,
  labelRoutes,
];

/**
 * The Dramaturg HTTP app (Hono): the JSON API under `/api`, its OpenAPI document at `/api/openapi.json`,
 * and the dashboard's pages (`/` → `/agents`).
 *
 * ```ts
 * const app = createServerApp({ store: await openStore(".dramaturg") });
 * const runs = await (await app.request("/api/runs?limit=10")).json();
 * ```
 */
export function createServerApp({
  store,
  token,
  host,
  allowedHosts,
  sessionTtl,
  now,
  bodyLimit = DEFAULT_BODY_LIMIT,
  judge = "none",
  judgeSettings,
  baselines,
  regressionThreshold,
  langfuseHost = process.env.LANGFUSE_BASE_URL || process.env.LANGFUSE_HOST || undefined,
  phoenixHost = process.env.PHOENIX_COLLECTOR_ENDPOINT || undefined,
  exportLedger,
}: ServerAppOptions): OpenAPIHono {
  const context: ServerContext = { store, judge, judgeSettings };
  const app = new OpenAPIHono({ defaultHook: validationHook });
  app.onError(errorHandler);
  app.notFound((c) =>
    c.json(new ApiError(404, "not_found", `no route ${c.req.method} ${c.req.path}`).body, 404),
  );
  checkToken(token);
  const signIn =
    token === undefined
      ? undefined
      : {
          token,
          sessions: sessionCookies({
            token,
            signedOut: store.signedOutSessions,
            ttlSeconds: sessionTtl,
            now,
          }),
        };
  app.use("*", securityHeaders());
  // gzip or deflate as the client accepts (a run page's HTML shrinks about tenfold); Node 20 has CompressionStream.
  app.use("*", compress());
  app.use("*", checkHostHeader(acceptedHosts(host, allowedHosts)));
  if (signIn) app.use("*", requireToken(signIn.token, signIn.sessions));
  app.use("*", limitBodies(bodyLimit));
  if (signIn) app.route("/", loginRoutes({ ...signIn, throttle: new SignInThrottle({ now }) }));
  for (const routes of ROUTES) app.route("/", routes(context));
  // The pages come after the API and behind the same token and headers.
  app.route(
    "/",
    dashboardRoutes({
      store,
      baselines,
      regressionThreshold,
      langfuseHost,
      phoenixHost,
      exportLedger,
      signOut: token !== undefined,
    }),
  );
  app.doc31("/api/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Dramaturg API",
      version: "0.1.0",
      description:
        "Runs, agents' histories, session analyses, conversations and correction logs from a Dramaturg store; session and OTLP trace analysis. Errors are {error: {code, message, path?}}.",
    },
    security: token === undefined ? [] : [{ bearer: [] }],
  });
  if (token !== undefined)
    app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });
  return app;
}
