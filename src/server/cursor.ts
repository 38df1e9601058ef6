// The opaque page cursor: base64url of the last row's (created_at, id). Clients pass it back unchanged;
// a cursor that does not decode is bad input naming the `cursor` parameter.
import type { PageAfter } from "../store/index.ts";
import { ApiError } from "./api-error.ts";

export function encodeCursor(row: { created_at: string; id: string }): string {
  return Buffer.from(JSON.stringify([row.created_at, row.id]), "utf8").toString("base64url");
}

export function decodeCursor(cursor: string): PageAfter {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === "string" &&
      typeof value[1] === "string" &&
      !Number.isNaN(Date.parse(value[0]))
    )
      return { created_at: value[0], id: value[1] };
  } catch {
    // Not JSON: the same answer as any other cursor we did not make.
  }
  throw new ApiError(
    400,
    "bad_request",
    "not a cursor this server gave; pass next_cursor back as it is",
    "cursor",
  );
}

/**
 * A page from `limit + 1` rows fetched: the first `limit`, and the cursor after the last of them when
 * there were more (so the last page says it is the last, with no empty page after it).
 */
export function pageOf<R extends { created_at: string; id: string }>(
  rows: R[],
  limit: number,
): { rows: R[]; next_cursor: string | null } {
  const page = rows.slice(0, limit);
  return { rows: page, next_cursor: rows.length > limit ? encodeCursor(page.at(-1)!) : null };
}
