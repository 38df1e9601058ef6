// The opaque page cursor: base64url of the last row's (created_at, id). Clients pass it back unchanged;
// a cursor that does not decode is bad input naming the `cursor` parameter.
import { decodePageCursor, type PageAfter } from "../store/index.ts";
import { ApiError } from "./api-error.ts";

/** The row a cursor names; no cursor (the first page) is undefined. */
export function decodeCursor(cursor: string | undefined): PageAfter | undefined {
  if (cursor === undefined) return undefined;
  const after = decodePageCursor(cursor);
  if (after) return after;
  throw new ApiError(
    400,
    "bad_request",
    "not a cursor this server gave; pass next_cursor back as it is",
    "cursor",
  );
}
