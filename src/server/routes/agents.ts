// `/api/agents`: every agent with its latest completed run, and an agent's history — its score per run
// over time, marking where judge, propositions or persona changed (what `dramaturg history` prints).

import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { AGENT_DIMENSIONS, plainIssueMessage } from "../../core/index.ts";
import { agentHistory } from "../../regression/index.ts";
import { encodePageCursor, pageOf } from "../../store/index.ts";
import { notFound } from "../api-error.ts";
import { decodeCursor } from "../cursor.ts";
import { errorResponses, NextCursor, notFoundResponse, PageQuery } from "../query.ts";
import type { ServerContext } from "../server-context.ts";
import { validationHook } from "../validation-hook.ts";

const Agent = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    created_at: z.string(),
    latest_run: z
      .looseObject({ id: z.string(), overall_score: z.number().nullable() })
      .nullable()
      .openapi({ description: "the agent's newest completed run, with its dimension scores" }),
  })
  .openapi("Agent");

const list = createRoute({
  method: "get",
  path: "/api/agents",
  summary: "agents, newest first, each with its latest completed run",
  request: { query: PageQuery },
  responses: {
    200: {
      description: "a page of agents",
      content: {
        "application/json": { schema: z.object({ agents: z.array(Agent), next_cursor: NextCursor }) },
      },
    },
    ...errorResponses,
  },
});

const history = createRoute({
  method: "get",
  path: "/api/agents/{id}/history",
  summary: "an agent's score over its completed runs, oldest first",
  request: {
    params: z.object({
      id: z
        .string()
        .min(1)
        .max(200)
        .openapi({ param: { name: "id", in: "path" }, description: "the agent's id" }),
    }),
    query: z.object({
      dimension: z
        .enum(AGENT_DIMENSIONS, { error: plainIssueMessage })
        .optional()
        .openapi({ description: "a dimension; the overall score when absent" }),
      limit: z.coerce
        .number({ error: plainIssueMessage })
        .int({ error: plainIssueMessage })
        .min(1, { error: plainIssueMessage })
        .max(1000, { error: plainIssueMessage })
        .default(200)
        .openapi({ description: "the newest this many runs, 1–1000" }),
      cursor: z.string({ error: plainIssueMessage }).optional().openapi({
        description: "next_cursor of the previous page: the runs before it (pages walk back in time)",
      }),
    }),
  },
  responses: {
    200: {
      description: "the history: one point per run, with what changed since the point before",
      content: {
        "application/json": {
          schema: z
            .object({
              agent: z.string(),
              dimension: z.string(),
              points: z.array(z.looseObject({ run_id: z.string() })),
              next_cursor: NextCursor,
            })
            .openapi("AgentHistory"),
        },
      },
    },
    ...errorResponses,
    ...notFoundResponse,
  },
});

export function agentRoutes({ store }: ServerContext): OpenAPIHono {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  app.openapi(list, async (c) => {
    const { limit, cursor, since, until } = c.req.valid("query");
    const after = decodeCursor(cursor);
    // Agents are few (one per character or team member), so the page is cut here rather than in SQL.
    const from = since === undefined ? -Infinity : Date.parse(since);
    const to = until === undefined ? Infinity : Date.parse(until);
    const newestFirst = (a: { created_at: string; id: string }, b: { created_at: string; id: string }) =>
      b.created_at.localeCompare(a.created_at) || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0);
    const rows = (await store.agents.list())
      .filter((a) => {
        const at = Date.parse(a.created_at);
        return at >= from && at <= to && (after === undefined || newestFirst(after, a) < 0);
      })
      .sort(newestFirst);
    const page = pageOf(rows, limit);
    const agents = await Promise.all(
      page.rows.map(async ({ persona_hash: _, ...agent }) => {
        const [latest] = await store.runs.list({ agent: agent.id, status: "completed", limit: 1 });
        return {
          ...agent,
          latest_run: latest
            ? {
                id: latest.id,
                created_at: latest.created_at,
                overall_score: latest.overall_score,
                dimension_scores: latest.dimension_scores,
                judge: latest.judge,
              }
            : null,
        };
      }),
    );
    return c.json({ agents, next_cursor: page.next ?? null }, 200);
  });
  app.openapi(history, async (c) => {
    const { id } = c.req.valid("param");
    const { dimension, limit, cursor } = c.req.valid("query");
    const before = decodeCursor(cursor);
    if (!(await store.agents.get(id))) throw notFound(`agent ${id}`);
    // One point more than the page, the oldest: it says there is an older page, and it is the point the
    // page's first one is compared with for what changed.
    const points = await store.runs.history({ agent: id, dimension, limit: limit + 1, before });
    const history = agentHistory(id, dimension ?? "overall", points);
    const more = points.length > limit;
    const oldest = more ? points[1]! : undefined;
    return c.json(
      {
        ...history,
        points: more ? history.points.slice(1) : history.points,
        next_cursor: oldest ? encodePageCursor({ created_at: oldest.created_at, id: oldest.run_id }) : null,
      },
      200,
    );
  });
  return app;
}
