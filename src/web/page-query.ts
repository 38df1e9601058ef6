// The query string every list page reads (agent, dimension, since, until, cursor, limit), validated with
// zod at the edge, and the opaque cursor of its "next page" link. Bad input is a PageInputError (400).
import { z } from "zod";
import { plainIssueMessage } from "../core/index.ts";
import { decodePageCursor, type PageAfter } from "../store/index.ts";

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

const IsoTime = z
  .string({ error: plainIssueMessage })
  .regex(ISO_TIME, { error: "expected an ISO 8601 date or time, e.g. 2026-03-01 or 2026-03-01T12:00:00Z" })
  .refine((text) => !Number.isNaN(Date.parse(text)), { error: "expected a date that exists" });

const Name = z.string({ error: plainIssueMessage }).min(1).max(200);

/** An empty field of a submitted filter form means "no filter", not bad input. */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === "" ? undefined : value), schema.optional());

export const PageQuerySchema = z.object({
  agent: optional(Name),
  dimension: optional(Name),
  since: optional(IsoTime),
  until: optional(IsoTime),
  cursor: optional(z.string().max(500)),
  limit: z.coerce.number({ error: plainIssueMessage }).int().min(1).max(200).default(50),
});

export type PageQuery = z.infer<typeof PageQuerySchema>;

/** Bad input in a page's query string or path: a 400 page naming the parameter. */
export class PageInputError extends Error {
  override readonly name = "PageInputError";
  constructor(
    message: string,
    readonly parameter: string,
  ) {
    super(`${parameter}: ${message}`);
  }
}

export function parsePageQuery(query: Record<string, string>): PageQuery {
  const parsed = PageQuerySchema.safeParse(query, { error: plainIssueMessage });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new PageInputError(issue.message, issue.path.join(".") || "query");
}

/** The cursor after a page's last row: base64url of its (created_at, id), as the API's. */
export function decodeCursor(cursor: string | undefined): PageAfter | undefined {
  if (cursor === undefined) return undefined;
  const after = decodePageCursor(cursor);
  if (after) return after;
  throw new PageInputError("not a cursor this dashboard gave; follow the page's links", "cursor");
}

/** A path's id parameter: a uuid, as the lists link them. */
export function pageId(id: string): string {
  if (!z.uuid().safeParse(id).success)
    throw new PageInputError("expected an id (a uuid, as the lists link it)", "id");
  return id;
}
