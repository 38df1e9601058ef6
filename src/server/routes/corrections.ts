// `/api/corrections`: the action gate's stored checks, newest first (paginated, by agent, gate dimension
// and time), with the statistics `dramaturg corrections stats` prints over the same agent and time.

import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { fetchPage } from "../../store/index.ts";
import { decodeCursor } from "../cursor.ts";
import { AgentFilter, DimensionFilter, errorResponses, NextCursor, PageQuery } from "../query.ts";
import type { ServerContext } from "../server-context.ts";
import { validationHook } from "../validation-hook.ts";

const Check = z
  .looseObject({ id: z.string(), agent_id: z.string(), outcome: z.string(), created_at: z.string() })
  .openapi("CorrectionLog", {
    description:
      "one gate check: original and corrected text, dimension scores, similarity, attempt, outcome",
  });

const list = createRoute({
  method: "get",
  path: "/api/corrections",
  summary: "the action gate's checks, newest first",
  request: { query: PageQuery.extend({ agent: AgentFilter, dimension: DimensionFilter }) },
  responses: {
    200: {
      description: "a page of checks",
      content: {
        "application/json": { schema: z.object({ corrections: z.array(Check), next_cursor: NextCursor }) },
      },
    },
    ...errorResponses,
  },
});

export function correctionRoutes({ store }: ServerContext): OpenAPIHono {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  app.openapi(list, async (c) => {
    const { limit, cursor, since, until, agent, dimension } = c.req.valid("query");
    const page = await fetchPage(limit, (n) =>
      store.corrections.list({
        agent_id: agent,
        since,
        until,
        dimension,
        after: decodeCursor(cursor),
        limit: n,
      }),
    );
    return c.json({ corrections: page.rows, next_cursor: page.next ?? null }, 200);
  });
  return app;
}
