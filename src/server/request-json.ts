// Reads a request body that must be JSON: a wrong media type is 415, and a syntax error is 400 naming its
// line and column (the body is read as text, within the body limit, and parsed by core's JSON reader).
import type { Context } from "hono";
import { parseJsonText } from "../core/index.ts";
import { ApiError } from "./api-error.ts";

export async function requestJson(c: Context, what: string): Promise<unknown> {
  const type = c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== undefined && type !== "application/json" && !type.endsWith("+json"))
    throw new ApiError(415, "unsupported_media_type", `expected application/json (${what}), got ${type}`);
  return parseJsonText(await c.req.text(), "the request body", what);
}
