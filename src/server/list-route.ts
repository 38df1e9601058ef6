// A list route of the API (`GET /api/runs`, `/api/corrections`, `/api/<section>` of each kind): a page of rows
// newest first as `{ <section>: [...], next_cursor }`, its query the page's (limit, cursor, since, until) with
// the agent filter and, where the rows have dimensions, the dimension filter — validated and documented in the
// OpenAPI document by the same schemas.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { fetchPage, type PageAfter } from "../store/index.ts";
import { decodeCursor } from "./cursor.ts";
import { AgentFilter, DimensionFilter, errorResponses, NextCursor, PageQuery } from "./query.ts";

/** A list's words and schemas in the OpenAPI document, as a stored kind declares them (`StoredKindApi`). */
export interface ListApi {
  summary: string;
  /** Its 200 answer's description: "a page of runs". */
  description: string;
  /** A row's schema. */
  row: z.ZodType;
  /** The agent filter's description, where it says more than "only this agent's rows". */
  agent?: string;
  /** Whether it filters by dimension too. */
  dimension?: boolean;
}

/** A list's query: the page's, the agent and, where it has one, the dimension. */
export type ListQuery = z.output<typeof PageQuery> & { agent?: string; dimension?: string };

/**
 * Adds `GET /api/<section>` to `app`: `list` reads a page of rows newest first after the cursor's row (each
 * with the id and time a cursor names).
 */
export function listRoute(
  app: OpenAPIHono,
  section: string,
  { summary, description, row, agent, dimension }: ListApi,
  list: (
    query: ListQuery,
    after: PageAfter | undefined,
    limit: number,
  ) => Promise<readonly { id: string; created_at: string }[]>,
): void {
  const filters = {
    agent: agent === undefined ? AgentFilter : AgentFilter.openapi({ description: agent }),
    ...(dimension ? { dimension: DimensionFilter } : {}),
  };
  const route = createRoute({
    method: "get",
    path: `/api/${section}`,
    summary,
    request: { query: PageQuery.extend(filters) },
    responses: {
      200: {
        description,
        content: {
          "application/json": { schema: z.object({ [section]: z.array(row), next_cursor: NextCursor }) },
        },
      },
      ...errorResponses,
    },
  });
  app.openapi(route, async (c) => {
    // The dimension is in the query only when the list has it (an optional key of the schema: typed unknown).
    const query = c.req.valid("query") as ListQuery;
    const after = decodeCursor(query.cursor);
    const page = await fetchPage(query.limit, (n) => list(query, after, n));
    return c.json({ [section]: page.rows, next_cursor: page.next ?? null }, 200);
  });
}
