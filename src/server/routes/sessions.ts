// `POST /api/sessions/analyze`: analyses a posted session through the same library call as `dramaturg session
// analyze` and stores it (the stored analyses are read back through the kind's routes, stored-kinds.ts).

import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { InputError, issuePath, plainIssueMessage, validateInput } from "../../core/index.ts";
import { analyzeSession, SESSION_FORMATS, SessionSchema, sessionsDocument } from "../../sessions/index.ts";
import { ApiError } from "../api-error.ts";
import { ErrorSchema, errorResponses } from "../query.ts";
import { requestJson } from "../request-json.ts";
import type { ServerContext } from "../server-context.ts";
import { validationHook } from "../validation-hook.ts";

const Analysis = z.looseObject({ format: z.string() }).openapi("SessionAnalysis", {
  description:
    "dramaturg.session-analysis/v1 (one session: overall, coordination and intent-drift scores, per_agent_scores, turn_results, recommendations, tool_validation, latency, sources) or dramaturg.sessions-analysis/v1 (several)",
});

/** The query of `POST /api/sessions/analyze`. A judge cannot be named here: only the server's, or none. */
export const AnalyzeQuery = z.object({
  judge: z
    .enum(["none"], { error: plainIssueMessage })
    .optional()
    .openapi({ description: "`none`: the deterministic parts only; default: the server's judge" }),
  from: z
    .enum(SESSION_FORMATS, { error: plainIssueMessage })
    .optional()
    .openapi({ description: "the body's format; default: recognised" }),
  source: z
    .string({ error: plainIssueMessage })
    .min(1, { error: plainIssueMessage })
    .max(500, { error: plainIssueMessage })
    .optional()
    .openapi({
      description: "what the analysis's sources call the body (e.g. its file name); default `request`",
    }),
});

const analyze = createRoute({
  method: "post",
  path: "/api/sessions/analyze",
  summary: "analyse a session and store the analysis",
  description:
    "The body is a dramaturg.session/v1 document, or any format the session importer reads (ReAsk's, an OpenAI chat log, OpenAI Agents SDK or OTLP traces).",
  request: {
    query: AnalyzeQuery,
    body: { required: true, content: { "application/json": { schema: SessionSchema } } },
  },
  responses: {
    200: {
      description: "the analysis, the same JSON as `dramaturg session analyze --format json`",
      content: { "application/json": { schema: Analysis } },
    },
    ...errorResponses,
    413: {
      description: "the body is over the server's limit",
      content: { "application/json": { schema: ErrorSchema } },
    },
    415: { description: "the body is not JSON", content: { "application/json": { schema: ErrorSchema } } },
  },
});

/** Query parameters checked by hand where the body is read by hand (below), with the same schema. */
export function validQuery<S extends z.ZodType>(schema: S, query: Record<string, string>): z.output<S> {
  const parsed = validateInput(schema, query);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ApiError(400, "bad_request", issue?.message ?? "invalid query", issue && issuePath(issue.path));
}

/**
 * A posted value the importers may read. A string (or list of strings) would be read as file paths on
 * this machine by analyzeSession: never from the network.
 */
export function postedDocument(value: unknown, what: string): unknown {
  const paths =
    typeof value === "string" || (Array.isArray(value) && value.every((v) => typeof v === "string"));
  if (paths || value === null || typeof value !== "object")
    throw new InputError(
      `expected ${what} (a JSON object), got ${Array.isArray(value) ? "a list" : typeof value}`,
      {
        place: "(root)",
      },
    );
  return value;
}

export function sessionAnalyzeRoutes({ store, judge, judgeSettings }: ServerContext): OpenAPIHono {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  // The body is read by hand (not by the route's validator): any importer's format is welcome, and a JSON
  // syntax error gets its line and column. The route above documents it; this serves it.
  app.post(analyze.path, async (c) => {
    const query = validQuery(AnalyzeQuery, c.req.query());
    const body = postedDocument(await requestJson(c, "a session"), "a session");
    const result = await analyzeSession(body, {
      from: query.from,
      source: query.source ?? "request",
      judge: query.judge ?? judge,
      judgeSettings,
      store,
    });
    return c.json(sessionsDocument(result) as object, 200);
  });
  app.openAPIRegistry.registerPath(analyze);
  return app;
}
