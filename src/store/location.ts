// Where a store lives: a PostgreSQL URL, `memory://`, or a PGlite data folder; and the one way a
// URL is ever shown (password replaced by `***`).

export type StoreLocation =
  | { kind: "postgres"; url: string; display: string }
  | { kind: "memory"; display: string }
  | { kind: "folder"; path: string; display: string };

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

export function parseLocation(location: string): StoreLocation {
  if (POSTGRES_URL.test(location)) return { kind: "postgres", url: location, display: redactUrl(location) };
  if (location === "memory://" || location === "memory:") return { kind: "memory", display: "memory://" };
  return { kind: "folder", path: location, display: location };
}

/** `postgres://user:secret@host/db` → `postgres://user:***@host/db`. Works on unparseable URLs too. */
export function redactUrl(url: string): string {
  const parts = splitCredentials(url);
  if (!parts || parts.password === undefined) return url;
  return `${parts.prefix}${parts.user}:***@${parts.rest}`;
}

/** Removes every spelling of the URL's password (raw and percent-decoded) from a text. */
export function scrubPassword(text: string, url: string): string {
  const password = splitCredentials(url)?.password;
  if (!password) return text;
  const forms = new Set([password]);
  try {
    forms.add(decodeURIComponent(password));
  } catch {
    // A malformed escape: the raw form is all there is.
  }
  let out = text.split(url).join(redactUrl(url));
  for (const form of forms) if (form) out = out.split(form).join("***");
  return out;
}

/**
 * Splits `scheme://user:password@rest`. Not `new URL()`: a password with an unescaped `@`, `/` or `#`
 * would be mis-split by it, and then leak. The credentials end at the last `@` before any `?`.
 */
function splitCredentials(
  url: string,
): { prefix: string; user: string; password?: string; rest: string } | undefined {
  const scheme = url.indexOf("://");
  if (scheme < 0) return undefined;
  const prefix = url.slice(0, scheme + 3);
  const after = url.slice(scheme + 3);
  const query = after.indexOf("?");
  const at = (query < 0 ? after : after.slice(0, query)).lastIndexOf("@");
  if (at < 0) return undefined;
  const userinfo = after.slice(0, at);
  const colon = userinfo.indexOf(":");
  const rest = after.slice(at + 1);
  if (colon < 0) return { prefix, user: userinfo, rest };
  return { prefix, user: userinfo.slice(0, colon), password: userinfo.slice(colon + 1), rest };
}
