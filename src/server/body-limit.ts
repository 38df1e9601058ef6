// Refuses request bodies over a size (413, in the API's error shape) before they are read whole: a session
// or a trace batch is megabytes at most, and the server must not hold an arbitrarily large one in memory.
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "./api-error.ts";

/** The default body limit: 10 MiB. */
export const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;

export function limitBodies(maxSize: number = DEFAULT_BODY_LIMIT): MiddlewareHandler {
  return bodyLimit({
    maxSize,
    onError: (c) =>
      c.json(
        new ApiError(413, "payload_too_large", `the request body is over the limit of ${maxSize} bytes`).body,
        413,
      ),
  });
}
