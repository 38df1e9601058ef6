// What a request that fails its route's zod schema gets: 400 in the API's error shape, naming the first
// problem's place (a query parameter, a path parameter or the JSON path in the body).
import type { Hook } from "@hono/zod-openapi";
import { issuePath } from "../core/index.ts";
import { ApiError } from "./api-error.ts";

// biome-ignore lint/suspicious/noExplicitAny: the hook serves every route, whatever its input types.
export const validationHook: Hook<any, any, any, any> = (result, c) => {
  if (result.success) return;
  const issue = result.error.issues[0];
  const error = new ApiError(
    400,
    "bad_request",
    issue?.message ?? "invalid request",
    issue ? issuePath(issue.path) : undefined,
  );
  return c.json(error.body, 400);
};
