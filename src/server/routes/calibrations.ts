// `/api/calibrations`: stored calibrations of the judge against human labels, newest first with their
// headline figures (paginated), and one calibration's `dramaturg.calibration/v1` document as stored — what
// `dramaturg show ID --format json` prints.

import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { CALIBRATION_FORMAT, listCalibrations } from "../../calibration/index.ts";
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

const Interval = z.tuple([z.number(), z.number()]).nullable();

const CalibrationLine = z
  .object({
    id: z.string(),
    created_at: z.string(),
    status: z.string(),
    judge: z.object({ provider: z.string(), model: z.string() }).nullable(),
    judged: z.boolean().nullable(),
    calibrated_evaluation: z.string().nullable(),
    labels: z.array(z.string()),
    n: z.number().nullable(),
    n_judged: z.number().nullable(),
    kappa_quadratic: z.number().nullable(),
    kappa_ci: Interval,
    propositions: z.number().nullable(),
    flagged: z.number().nullable(),
    minimum_kappa: z.number().nullable(),
    warnings: z.array(z.string()),
  })
  .openapi("CalibrationLine", {
    description: "a stored calibration with its overall κ and flagged propositions (null until it completed)",
  });

const Calibration = z
  .looseObject({ format: z.literal(CALIBRATION_FORMAT), evaluation_id: z.string().nullable() })
  .openapi("Calibration", { description: "the dramaturg.calibration/v1 document, as stored" });

const list = createRoute({
  method: "get",
  path: "/api/calibrations",
  summary: "stored calibrations of the judge against human labels, newest first",
  request: {
    query: PageQuery.extend({
      agent: AgentFilter.openapi({ description: "only calibrations with labels of this agent (its id)" }),
    }),
  },
  responses: {
    200: {
      description: "a page of calibrations",
      content: {
        "application/json": {
          schema: z.object({ calibrations: z.array(CalibrationLine), next_cursor: NextCursor }),
        },
      },
    },
    ...errorResponses,
  },
});

const one = createRoute({
  method: "get",
  path: "/api/calibrations/{id}",
  summary: "one stored calibration's document",
  request: { params: IdParam },
  responses: {
    200: { description: "the document as stored", content: { "application/json": { schema: Calibration } } },
    ...errorResponses,
    ...notFoundResponse,
    409: {
      description: "the calibration did not complete, or was stored without its document",
      content: { "application/json": { schema: ErrorSchema } },
    },
  },
});

export function calibrationRoutes({ store }: ServerContext): OpenAPIHono {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  app.openapi(list, async (c) => {
    const { limit, cursor, since, until, agent } = c.req.valid("query");
    const page = await fetchPage(limit, (n) =>
      listCalibrations({ store, agent, since, until, after: decodeCursor(cursor), limit: n }),
    );
    return c.json({ calibrations: page.rows, next_cursor: page.next ?? null }, 200);
  });
  app.openapi(one, async (c) => {
    const { id } = c.req.valid("param");
    const row = await store.evaluations.get(id);
    if (row?.kind !== "calibration") throw notFound(`calibration ${id}`);
    if (row.status !== "completed")
      throw new ApiError(409, "not_completed", `calibration ${id} is ${row.status}; it has no result yet`);
    const result = (await store.evaluations.result(id)) as { format?: unknown } | undefined;
    if (result?.format !== CALIBRATION_FORMAT)
      throw new ApiError(
        409,
        "no_document",
        `calibration ${id} was stored without its document; run it again`,
      );
    return c.json(result as z.infer<typeof Calibration>, 200);
  });
  return app;
}
