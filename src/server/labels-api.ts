// `/api/evaluations/{id}/labels`: the labels people saved on the dashboard's labelling page for a persona
// evaluation, as a `dramaturg.labels/v1` file (YAML, JSONL or CSV) that `dramaturg calibrate --labels` reads.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { exportStoredLabels, LABELS_OUTPUT_FORMATS, LABELS_OUTPUT_TYPES } from "../calibration/index.ts";
import { plainIssueMessage } from "../core/index.ts";
import { notFound } from "./api-error.ts";
import { errorResponses, IdParam, notFoundResponse } from "./query.ts";
import type { ServerContext } from "./server-context.ts";
import { validationHook } from "./validation-hook.ts";

const exportLabels = createRoute({
  method: "get",
  path: "/api/evaluations/{id}/labels",
  summary: "a persona evaluation's human labels, as a dramaturg.labels/v1 file",
  request: {
    params: IdParam,
    query: z.object({
      format: z
        .enum(LABELS_OUTPUT_FORMATS, { error: `expected one of ${LABELS_OUTPUT_FORMATS.join(", ")}` })
        .default("yaml")
        .openapi({ description: "yaml (default), jsonl or csv" }),
      rater: z
        .string({ error: plainIssueMessage })
        .min(1, { error: plainIssueMessage })
        .max(64, { error: plainIssueMessage })
        .optional()
        .openapi({ description: "only this rater's labels" }),
    }),
  },
  responses: {
    200: {
      description: "the labels, sorted by target then rater",
      content: Object.fromEntries(
        LABELS_OUTPUT_FORMATS.map((f) => [
          LABELS_OUTPUT_TYPES[f].mediaType.split(";")[0]!,
          { schema: z.string() },
        ]),
      ),
    },
    ...errorResponses,
    ...notFoundResponse,
  },
});

export function labelRoutes({ store }: ServerContext): OpenAPIHono {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  app.openapi(exportLabels, async (c) => {
    const { id } = c.req.valid("param");
    const { format, rater } = c.req.valid("query");
    const evaluation = await store.evaluations.get(id);
    if (evaluation?.kind !== "persona") throw notFound(`persona evaluation ${id}`);
    const exported = await exportStoredLabels({ store, id: evaluation.id, format, rater });
    const { extension, mediaType } = LABELS_OUTPUT_TYPES[format];
    return c.body(exported.text, 200, {
      "Content-Type": mediaType,
      "Content-Disposition": `attachment; filename="labels-${evaluation.id.slice(0, 8)}.${extension}"`,
    });
  });
  return app;
}
