// `POST /api/traces`: OTLP JSON, as the OpenTelemetry HTTP exporter sends it (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
// =http://host:4477/api/traces`, protocol http/json), read by the OTLP importer, analysed and stored.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { analyzeSession } from "../../sessions/index.ts";
import { ErrorSchema, errorResponses } from "../query.ts";
import { requestJson } from "../request-json.ts";
import type { ServerContext } from "../server-context.ts";
import { postedDocument, validQuery } from "./sessions.ts";

const TracesQuery = z.object({
  judge: z
    .enum(["none"])
    .optional()
    .openapi({ description: "`none`: the deterministic parts only; default: the server's judge" }),
});

const Otlp = z
  .looseObject({ resourceSpans: z.array(z.looseObject({})) })
  .openapi("OtlpTraces", { description: "an OTLP ExportTraceServiceRequest in JSON" });

const route = createRoute({
  method: "post",
  path: "/api/traces",
  summary: "receive OTLP traces (JSON), analyse the sessions in them and store the analysis",
  request: {
    query: TracesQuery,
    body: { required: true, content: { "application/json": { schema: Otlp } } },
  },
  responses: {
    200: {
      description: "the stored analysis's id and each session's id and overall score",
      content: {
        "application/json": {
          schema: z.object({
            evaluation_id: z.string().nullable(),
            analyses: z.array(
              z.object({
                session_id: z.string().nullable(),
                overall_score: z.number().nullable(),
                tool_findings: z.number(),
              }),
            ),
          }),
        },
      },
    },
    ...errorResponses,
    413: {
      description: "the body is over the server's limit",
      content: { "application/json": { schema: ErrorSchema } },
    },
    415: {
      description: "not JSON (the protobuf encoding is not read: set the exporter to http/json)",
      content: { "application/json": { schema: ErrorSchema } },
    },
  },
});

export function traceRoutes({ store, judge, judgeSettings }: ServerContext): OpenAPIHono {
  const app = new OpenAPIHono();
  app.post(route.path, async (c) => {
    const query = validQuery(TracesQuery, c.req.query());
    const body = postedDocument(await requestJson(c, "OTLP traces in JSON"), "OTLP traces in JSON");
    const result = await analyzeSession(body, {
      from: "otlp",
      source: "otlp",
      judge: query.judge ?? judge,
      judgeSettings,
      store,
    });
    return c.json(
      {
        evaluation_id: result.evaluation_id ?? null,
        analyses: result.analyses.map((a) => ({
          session_id: a.session_id,
          overall_score: a.overall_score,
          tool_findings: a.tool_validation.filter((f) => f.type !== "tool_error").length,
        })),
      },
      200,
    );
  });
  app.openAPIRegistry.registerPath(route);
  return app;
}
