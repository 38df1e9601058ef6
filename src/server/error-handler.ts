// Turns whatever a request threw into the API's error shape with its status: bad input 400 naming its
// place, a missing store or judge 503/502, and anything unexpected a 500 that shows no stack or secret.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { InputError, JudgeError, redactSecrets as redact, StoreError } from "../core/index.ts";
import { ApiError } from "./api-error.ts";

/** An InputError's message without the `file:place: ` its constructor put in front (path says where). */
function bareMessage(error: InputError): string {
  const where = [error.file, error.place].filter(Boolean).join(":");
  return where && error.message.startsWith(`${where}: `)
    ? error.message.slice(where.length + 2)
    : error.message;
}

export function toApiError(error: unknown): ApiError {
  if (ApiError.isInstance(error)) return error;
  if (InputError.isInstance(error))
    return new ApiError(400, "bad_request", redact(bareMessage(error)), error.place);
  if (error instanceof HTTPException) {
    const status = error.status;
    if (status === 413) return new ApiError(413, "payload_too_large", "the request body is too large");
    if (status === 401) return new ApiError(401, "unauthorized", "a token is required");
    return new ApiError(400, "bad_request", redact(error.message || "bad request"));
  }
  if (StoreError.isInstance(error)) return new ApiError(503, "store_unavailable", redact(error.message));
  if (JudgeError.isInstance(error)) return new ApiError(502, "judge_failed", redact(error.message));
  return new ApiError(500, "internal", "the server could not complete the request");
}

/** Hono's `onError`: the error as JSON; unexpected ones are also logged (redacted) for the operator. */
export function errorHandler(error: Error, c: Context): Response {
  const api = toApiError(error);
  if (api.status === 500) process.stderr.write(`dramaturg serve: ${redact(error.stack ?? String(error))}\n`);
  return c.json(api.body, api.status);
}
