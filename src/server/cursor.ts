// The opaque page cursor: base64url of the last row's (created_at, id). Clients pass it back unchanged;
// a cursor that does not decode is bad input naming the `cursor` parameter.
import { decodePageCursor, encodePageCursor, type PageAfter } from "../store/index.ts";
import { ApiError } from "./api-error.ts";

export const encodeCursor = encodePageCursor;

export function decodeCursor(cursor: string): PageAfter {
  const after = decodePageCursor(cursor);
  if (after) return after;
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
