// The one secret redactor: every text bound for a log, an error, a report or a stored record can pass
// through it, and the project-file check uses the same patterns to refuse secrets written in the file.
// A URL keeps its shape with `***` for the password; anything else becomes `[redacted]`.

/** What a removed secret is replaced by (a URL's password becomes `***` instead). */
export const REDACTED = "[redacted]";

// Shared by the redactor (global) and the detector (first match); built from sources, not shared
// RegExp objects, because a global RegExp carries state (`lastIndex`) between callers.
/** Keys as the providers issue them: OpenAI `sk-…`/`sk-proj-…`, Anthropic `sk-ant-…`, session tokens. */
const TOKEN = String.raw`\b(?:(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}|sess-[A-Za-z0-9]{20,})`;
const BEARER = String.raw`\b(bearer\s+)[^\s"',;]+`;
/**
 * A value under a name that says it is a credential: `api_key: …`, `"x-api-key": "…"`, `password=…`,
 * OpenAI's "Incorrect API key provided: …". A separator is required, so prose ("the API key variable") passes.
 */
const NAMED = String.raw`\b((?:x-)?api[\s_-]?key(?:\s+provided)?|apikey|access[_-]?token|token|secret|password|authorization|key)(["']?\s*[:=]\s*["']?)([^\s"',;}]+)`;
/** `scheme://user:password@` — the password of any URL. */
const URL_PASSWORD = String.raw`\b([a-z][a-z0-9+.-]*:\/\/[^\s/@:]+:)[^\s/@]+@`;

export interface RedactOptions {
  /** Secret values the caller knows (an API key it sent): every occurrence goes. Shorter than 4 are ignored. */
  secrets?: readonly string[];
  /**
   * URLs whose password goes in every spelling (raw and percent-decoded), even one with an unescaped `@`
   * that the general URL pattern would mis-split; the URL itself is shown as {@link redactUrl} shows it.
   */
  urls?: readonly string[];
}

/**
 * Removes secrets from a text: the known values and URLs given, and anything that looks like a
 * credential — `sk-…`/`sk-ant-…` keys, `Bearer …`, `api_key=…`-style values, URL passwords.
 */
export function redactSecrets(text: string, { secrets = [], urls = [] }: RedactOptions = {}): string {
  let out = text;
  for (const url of urls) out = scrubUrlPassword(out, url);
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join(REDACTED);
  return out
    .replace(new RegExp(URL_PASSWORD, "gi"), "$1***@")
    .replace(new RegExp(TOKEN, "g"), REDACTED)
    .replace(new RegExp(BEARER, "gi"), `$1${REDACTED}`)
    .replace(new RegExp(NAMED, "gi"), `$1$2${REDACTED}`);
}

/** A redactor bound to its known secrets, for options that take `(text) => string`. */
export function redactor(options: RedactOptions): (text: string) => string {
  return (text) => redactSecrets(text, options);
}

/** Where a secret is written in one line of text, and which kind it is; the earliest wins. */
export interface SecretPlace {
  /** Offset of the credential's name (`api_key: …`), the token itself, or the URL. */
  index: number;
  kind: "credential" | "url-password";
}

/** The first secret written in a line, by the same patterns {@link redactSecrets} removes. */
export function findSecret(line: string): SecretPlace | undefined {
  const found: SecretPlace[] = [];
  for (const source of [NAMED, TOKEN, BEARER]) {
    const m = new RegExp(source, "i").exec(line);
    if (m) found.push({ index: m.index, kind: "credential" });
  }
  const url = new RegExp(URL_PASSWORD, "i").exec(line);
  if (url) found.push({ index: url.index, kind: "url-password" });
  return found.sort((a, b) => a.index - b.index)[0];
}

/** `postgres://user:secret@host/db` → `postgres://user:***@host/db`. Works on unparseable URLs too. */
export function redactUrl(url: string): string {
  const parts = splitCredentials(url);
  if (!parts || parts.password === undefined) return url;
  return `${parts.prefix}${parts.user}:***@${parts.rest}`;
}

/** Removes every spelling of the URL's password (raw and percent-decoded) from a text. */
function scrubUrlPassword(text: string, url: string): string {
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
