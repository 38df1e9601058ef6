// `/api/runs`: evaluation runs newest first (paginated, by agent, dimension and time), and one run with
// its verdicts (scores with reasoning) — what `dramaturg runs` lists and `dramaturg show` prints.

import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { notFound } from "../api-error.ts";
import { type ListApi, listRoute } from "../list-route.ts";
import { DimensionFilter, errorResponses, IdParam, notFoundResponse } from "../query.ts";
import type { ServerContext } from "../server-context.ts";
import { validationHook } from "../validation-hook.ts";

const Run = z
  .looseObject({
    id: z.string(),
    agent_id: z.string(),
    evaluation_id: z.string().nullable(),
    status: z.string(),
    overall_score: z.number().nullable(),
    created_at: z.string(),
  })
  .openapi("Run", { description: "an evaluation run: one agent, one trial (see RunRow in the library)" });

/** `GET /api/runs`'s words. */
const RUNS: ListApi = {
  summary: "evaluation runs, newest first",
  description: "a page of runs",
  row: Run,
  dimension: true,
};

const one = createRoute({
  method: "get",
  path: "/api/runs/{id}",
  summary: "one run and its verdicts",
  request: { params: IdParam, query: z.object({ dimension: DimensionFilter }) },
  responses: {
    200: {
      description: "the run and its verdicts (score, reasoning, error) per proposition",
      content: {
        "application/json": {
          schema: z.object({ run: Run, scores: z.array(z.looseObject({ proposition_id: z.string() })) }),
        },
      },
    },
    ...errorResponses,
    ...notFoundResponse,
  },
});

export function runRoutes({ store }: ServerContext): OpenAPIHono {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  listRoute(app, "runs", RUNS, ({ agent, dimension, since, until }, after, limit) =>
    store.runs.list({ agent, dimension, since, until, after, limit }),
  );
  app.openapi(one, async (c) => {
    const { id } = c.req.valid("param");
    const { dimension } = c.req.valid("query");
    const run = await store.runs.get(id);
    if (!run) throw notFound(`run ${id}`);
    const scores = run.evaluation_id
      ? await store.scores.forEvaluation(run.evaluation_id, { run: run.id, dimension })
      : [];
    return c.json({ run, scores }, 200);
  });
  return app;
}
