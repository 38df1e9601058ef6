// `/api/corrections`: the action gate's stored checks, newest first (paginated, by agent, gate dimension
// and time), with the statistics `dramaturg corrections stats` prints over the same agent and time.

import { OpenAPIHono, z } from "@hono/zod-openapi";
import { type ListApi, listRoute } from "../list-route.ts";
import type { ServerContext } from "../server-context.ts";
import { validationHook } from "../validation-hook.ts";

const Check = z
  .looseObject({ id: z.string(), agent_id: z.string(), outcome: z.string(), created_at: z.string() })
  .openapi("CorrectionLog", {
    description:
      "one gate check: original and corrected text, dimension scores, similarity, attempt, outcome",
  });

/** `GET /api/corrections`'s words. */
const CHECKS: ListApi = {
  summary: "the action gate's checks, newest first",
  description: "a page of checks",
  row: Check,
  dimension: true,
};

export function correctionRoutes({ store }: ServerContext): OpenAPIHono {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  listRoute(app, "corrections", CHECKS, ({ agent, since, until, dimension }, after, limit) =>
    store.corrections.list({ agent_id: agent, since, until, dimension, after, limit }),
  );
  return app;
}
