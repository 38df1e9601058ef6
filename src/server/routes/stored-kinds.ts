// `/api/<section>` and `/api/<section>/{id}` of every stored kind read back by evaluation (sessions,
// conversations, calibrations, simulations…): its evaluations newest first (paginated, by agent and time),
// and one evaluation's document as `dramaturg show ID --format json` prints it. One pair of routes, made
// from each kind's registration.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { InputError } from "../../core/index.ts";
import type { StoredKind } from "../../engine/index.ts";
import { evaluationKinds } from "../../kinds/index.ts";
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

/** The list and document routes of one kind. */
function kindRoutes(app: OpenAPIHono, { store }: ServerContext, kind: StoredKind): void {
  const api = kind.api;
  if (!api) return;
  const list = createRoute({
    method: "get",
    path: `/api/${kind.section}`,
    summary: api.list.summary,
    request: { query: PageQuery.extend({ agent: AgentFilter.openapi({ description: api.list.agent }) }) },
    responses: {
      200: {
        description: api.list.description,
        content: {
          "application/json": {
            schema: z.object({ [kind.section]: z.array(api.list.row), next_cursor: NextCursor }),
          },
        },
      },
      ...errorResponses,
    },
  });
  const one = createRoute({
    method: "get",
    path: `/api/${kind.section}/{id}`,
    summary: api.one.summary,
    request: { params: IdParam },
    responses: {
      200: {
        description: api.one.description,
        content: { "application/json": { schema: api.one.document } },
      },
      ...errorResponses,
      ...notFoundResponse,
      409: { description: api.one.conflict, content: { "application/json": { schema: ErrorSchema } } },
    },
  });
  app.openapi(list, async (c) => {
    const { limit, cursor, since, until, agent } = c.req.valid("query");
    const page = await fetchPage(limit, (n) =>
      kind.list(store, { since, until, agent, after: decodeCursor(cursor), limit: n }),
    );
    return c.json({ [kind.section]: page.rows, next_cursor: page.next ?? null }, 200);
  });
  app.openapi(one, async (c) => {
    const { id } = c.req.valid("param");
    const row = await store.evaluations.get(id);
    if (row?.kind !== kind.kind) throw notFound(`${kind.noun} ${id}`);
    if (row.status !== "completed")
      throw new ApiError(409, "not_completed", `${kind.noun} ${id} is ${row.status}; it has no result yet`);
    const document = await kind.load(store, id).catch((error) => {
      if (!InputError.isInstance(error)) throw error;
      throw new ApiError(
        409,
        "no_document",
        `${kind.noun} ${id} was stored without its document; run it again`,
      );
    });
    return c.json(kind.json(document) as Record<string, unknown>, 200);
  });
}

/** The routes of every kind read back by evaluation, in the registry's order. */
export function storedKindRoutes(context: ServerContext): OpenAPIHono {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  for (const kind of evaluationKinds()) kindRoutes(app, context, kind);
  return app;
}
