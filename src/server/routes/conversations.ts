// `/api/conversations`: stored conversation runs (paginated) and one run's result, as `dramaturg show ID
// --format json` prints it: both passes, task scores with reasoning, assertions, the composite.

import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { listConversationResults, loadConversationResult } from "../../conversations/index.ts";
import { fetchPage } from "../../store/index.ts";
import { ApiError, notFound } from "../api-error.ts";
import { decodeCursor } from "../cursor.ts";
import {
  AgentFilter,
  ErrorSchema,
  errorResponses,
  IdParam,
  NextCursor,
  notFoundResponse,
  PageQuery,
} from "../query.ts";
import type { ServerContext } from "../server-context.ts";
import { validationHook } from "../validation-hook.ts";

const Result = z
  .looseObject({ format: z.string(), evaluation_id: z.string() })
  .openapi("ConversationResult", { description: "dramaturg.conversation-result/v1 with its evaluation id" });

// A conversation's agent is the agent under test: its job's `target.chatbot`. Conversations are scored by
// tasks and assertions, not by dimensions, so there is no dimension filter.
const ConversationListQuery = PageQuery.extend({
  agent: AgentFilter.openapi({
    description: "only conversations with this agent under test (the job's target.chatbot)",
  }),
});

const list = createRoute({
  method: "get",
  path: "/api/conversations",
  summary: "stored conversation runs, newest first",
  request: { query: ConversationListQuery },
  responses: {
    200: {
      description: "a page of conversation runs: id, status, job, each pass's composite score",
      content: {
        "application/json": {
          schema: z.object({
            conversations: z.array(z.looseObject({ id: z.string() })),
            next_cursor: NextCursor,
          }),
        },
      },
    },
    ...errorResponses,
  },
});

const one = createRoute({
  method: "get",
  path: "/api/conversations/{id}",
  summary: "one stored conversation run's result",
  request: { params: IdParam },
  responses: {
    200: { description: "the result", content: { "application/json": { schema: Result } } },
    ...errorResponses,
    ...notFoundResponse,
    409: {
      description: "the run did not complete",
      content: { "application/json": { schema: ErrorSchema } },
    },
  },
});

export function conversationRoutes({ store }: ServerContext): OpenAPIHono {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  app.openapi(list, async (c) => {
    const { limit, cursor, since, until, agent } = c.req.valid("query");
    const page = await fetchPage(limit, (n) =>
      listConversationResults({
        store,
        since,
        until,
        agent,
        after: decodeCursor(cursor),
        limit: n,
      }),
    );
    return c.json({ conversations: page.rows, next_cursor: page.next ?? null }, 200);
  });
  app.openapi(one, async (c) => {
    const { id } = c.req.valid("param");
    const row = await store.evaluations.get(id);
    if (row?.kind !== "conversation") throw notFound(`conversation ${id}`);
    if (row.status !== "completed")
      throw new ApiError(409, "not_completed", `conversation ${id} is ${row.status}; it has no result yet`);
    const result: unknown = await loadConversationResult({ store, id });
    return c.json(result as z.infer<typeof Result>, 200);
  });
  return app;
}
