// Turns a zod error into one readable line: the JSON path of the first problem and what was expected.
import type { z } from "zod";

/** `messages[3].sender` style path of a zod issue. */
export function issuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || "(root)";
}

/** The first issue of a zod error as `{ path, message }`. */
export function firstIssue(error: z.ZodError): { path: readonly PropertyKey[]; message: string } {
  const issue = error.issues[0];
  if (!issue) return { path: [], message: "invalid value" };
  let message = issue.message;
  if (issue.code === "unrecognized_keys")
    message = `unknown key ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
  return { path: issue.path, message };
}
