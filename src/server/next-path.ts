// Where the login form sends a browser back to: only a path on this server. Anything that could leave it
// (`//host`, `/\host`, `https://…`, a scheme, control characters) becomes `/`, so the form is no open redirect.

const BASE = "http://dramaturg.invalid";

/** `next` when it is a same-site relative path (its path, query and fragment), else `/`. */
export function sameSitePath(next: unknown): string {
  if (typeof next !== "string" || next.length > 2000) return "/";
  // Browsers read a backslash as a slash and drop tabs and newlines: `/\evil.example` is `//evil.example`.
  if (!next.startsWith("/") || next.startsWith("//") || [...next].some(unsafe)) return "/";
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return "/";
  }
  if (url.origin !== BASE) return "/";
  const path = `${url.pathname}${url.search}${url.hash}`;
  // Back to the form is nowhere: after signing in, the dashboard.
  return url.pathname === "/login" || url.pathname === "/logout" ? "/" : path;
}

/** A backslash, or a control character (below space, or DEL). */
const unsafe = (char: string) => char === "\\" || char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f;
