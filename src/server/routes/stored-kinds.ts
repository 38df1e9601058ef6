// `/api/<section>` and `/api/<section>/{id}` of every stored kind read back by evaluation (sessions,
// conversations, calibrations, simulations…): its evaluations newest first (paginated, by agent and time),
// and one evaluation's document as `dramaturg show ID --format json` prints it. One pair of routes, made
// from each kind's registration.
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { InputError } from "../../core/index.ts";
import type { StoredKind } from "../../engine/index.ts";
import { evaluationKinds } from "../../kinds/index.ts";
import { ApiError, notFound } from "../api-error.ts";
import { listRoute } from "../list-route.ts";
import { ErrorSchema, errorResponses, IdParam, notFoundResponse } from "../query.ts";
import type { ServerContext } from "../server-context.ts";
import { validationHook } from "../validation-hook.ts";

/** The list and document routes of one kind. */
function kindRoutes(app: OpenAPIHono, { store }: ServerContext, kind: StoredKind): void {
  const api = kind.api;
  if (!api) return;
  listRoute(app, kind.section, api.list, ({ since, until, agent }, after, limit) =>
    kind.list(store, { since, until, agent, after, limit }),
  );
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
