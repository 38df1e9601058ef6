// The opaque page cursor: base64url of the last row's (created_at, id). Clients pass it back unchanged;
// a cursor that does not decode is bad input naming the `cursor` parameter.
import { decodePageCursor, type PageAfter } from "../store/index.ts";
import { ApiError } from "./api-error.ts";

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
