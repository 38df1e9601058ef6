// `/api/runs`: evaluation runs newest first (paginated, by agent, dimension and time), and one run with
// its verdicts (scores with reasoning) — what `dramaturg runs` lists and `dramaturg show` prints.

import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { fetchPage } from "../../store/index.ts";
import { notFound } from "../api-error.ts";
import { decodeCursor } from "../cursor.ts";
import {
  AgentFilter,
  DimensionFilter,
  errorResponses,
  IdParam,
  NextCursor,
  notFoundResponse,
  PageQuery,
} from "../query.ts";
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

const list = createRoute({
  method: "get",
  path: "/api/runs",
  summary: "evaluation runs, newest first",
  request: { query: PageQuery.extend({ agent: AgentFilter, dimension: DimensionFilter }) },
  responses: {
    200: {
      description: "a page of runs",
      content: { "application/json": { schema: z.object({ runs: z.array(Run), next_cursor: NextCursor }) } },
    },
    ...errorResponses,
  },
});

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
  app.openapi(list, async (c) => {
    const { limit, cursor, since, until, agent, dimension } = c.req.valid("query");
    const page = await fetchPage(limit, (n) =>
      store.runs.list({
        agent,
        dimension,
        since,
        until,
        after: decodeCursor(cursor),
        limit: n,
      }),
    );
    return c.json({ runs: page.rows, next_cursor: page.next ?? null }, 200);
  });
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
