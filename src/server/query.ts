// The query parameters the list routes share (page size, cursor, agent, dimension, time range), as zod
// schemas: they validate each request and describe the parameters in the OpenAPI document.
import { z } from "@hono/zod-openapi";
import { plainIssueMessage } from "../core/index.ts";

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** An ISO 8601 date or date-time, e.g. `2026-03-01` or `2026-03-01T12:00:00Z`. */
export const IsoTime = z
  .string({ error: plainIssueMessage })
  .regex(ISO_TIME, { error: "expected an ISO 8601 date or time, e.g. 2026-03-01 or 2026-03-01T12:00:00Z" })
  .refine((text) => !Number.isNaN(Date.parse(text)), { error: "expected a date that exists" });

/** At most 200 rows a page; 50 by default. */
export const Limit = z.coerce
  .number({ error: plainIssueMessage })
  .int({ error: plainIssueMessage })
  .min(1, { error: plainIssueMessage })
  .max(200, { error: plainIssueMessage })
  .default(50)
  .openapi({ description: "rows per page, 1–200" });

export const PageQuery = z.object({
  limit: Limit,
  cursor: z
    .string({ error: plainIssueMessage })
    .optional()
    .openapi({ description: "next_cursor of the previous page, as given" }),
  since: IsoTime.optional().openapi({ description: "created at or after (ISO 8601)" }),
  until: IsoTime.optional().openapi({ description: "created at or before (ISO 8601)" }),
});

export const AgentFilter = z
  .string({ error: plainIssueMessage })
  .min(1, { error: plainIssueMessage })
  .max(200, { error: plainIssueMessage })
  .optional()
  .openapi({ description: "only this agent's rows (its id)" });

export const DimensionFilter = z
  .string({ error: plainIssueMessage })
  .min(1, { error: plainIssueMessage })
  .max(100, { error: plainIssueMessage })
  .optional()
  .openapi({ description: "only rows of this dimension (adherence, consistency, fluency, ideas_quantity…)" });

export const IdParam = z.object({
  id: z
    .uuid({ error: "expected an id (a uuid, as the lists give it)" })
    .openapi({ param: { name: "id", in: "path" } }),
});

/** Every list's page footer. */
export const NextCursor = z
  .string()
  .nullable()
  .openapi({ description: "pass as `cursor` for the next page; null on the last page" });

/** The error shape, for the OpenAPI document. */
export const ErrorSchema = z
  .object({
    error: z.object({ code: z.string(), message: z.string(), path: z.string().optional() }),
  })
  .openapi("Error");

/** The error responses every route may give. */
export const errorResponses = {
  400: {
    description: "bad input: `path` names the parameter or JSON path",
    content: { "application/json": { schema: ErrorSchema } },
  },
  401: {
    description: "no valid token (servers started with one)",
    content: { "application/json": { schema: ErrorSchema } },
  },
} as const;

export const notFoundResponse = {
  404: { description: "no such row", content: { "application/json": { schema: ErrorSchema } } },
} as const;
