// The AI SDK's two header helpers (`normalizeHeaders`, `withUserAgentSuffix` of @ai-sdk/provider-utils),
// with the same results, written without fetch's `Headers`. The SDK's versions touch the global `Headers`,
// which makes Node load its fetch implementation (undici) on the first judge request: 14 ms on Node 20 and
// 19 ms on Node 24 of the command's start-up, when the command's own fetch (node-fetch.ts) never needs it.
// The command's bundle (scripts/bundle-cli.mjs) uses these in place of the SDK's; the library, which leaves
// the SDK in node_modules, keeps the SDK's own. test/judge/provider-headers.test.ts holds both to the same outputs.

/** A header name, as fetch accepts it (RFC 9110's token). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What fetch refuses in a header value: NUL, CR, LF, or a character beyond one byte. */
const BAD_VALUE = /[\0\r\n]|[^\0-\xFF]/;
/** What fetch trims from both ends of a header value. */
const HTTP_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

type HeaderSource =
  | Record<string, string | undefined>
  | ReadonlyArray<readonly [string, string | undefined]>
  | { forEach(callback: (value: string, name: string) => void): void }
  | undefined
  | null;

/** Names lower-cased, empty (null or undefined) values left out; a record, an array of pairs or a Headers. */
export function normalizeHeaders(headers: HeaderSource): Record<string, string> {
  const normalized: Record<string, string> = {};
  if (headers == null) return normalized;
  if (!Array.isArray(headers) && typeof (headers as { forEach?: unknown }).forEach === "function") {
    (headers as { forEach(callback: (value: string, name: string) => void): void }).forEach((value, name) => {
      normalized[name.toLowerCase()] = value;
    });
    return normalized;
  }
  const entries = Array.isArray(headers)
    ? (headers as ReadonlyArray<readonly [string, string | undefined]>)
    : Object.entries(headers as Record<string, string | undefined>);
  for (const [name, value] of entries) if (value != null) normalized[name.toLowerCase()] = value;
  return normalized;
}

/**
 * The headers as a record in name order, each value trimmed as fetch trims it, with the suffix parts
 * appended to user-agent (space-separated, empty parts left out). Throws fetch's TypeError on a name or
 * value fetch would refuse.
 */
export function withUserAgentSuffix(
  headers: HeaderSource,
  ...userAgentSuffixParts: string[]
): Record<string, string> {
  const values = new Map<string, string>();
  for (const [name, value] of Object.entries(normalizeHeaders(headers)))
    values.set(name, checked(name, value));
  const userAgent = [values.get("user-agent") ?? "", ...userAgentSuffixParts].filter(Boolean).join(" ");
  values.set("user-agent", checked("user-agent", userAgent));
  const result: Record<string, string> = {};
  for (const name of [...values.keys()].sort()) result[name] = values.get(name)!;
  return result;
}

function checked(name: string, value: unknown): string {
  if (!TOKEN.test(name)) throw new TypeError(`Headers: "${name}" is an invalid header name.`);
  const text = String(value).replace(HTTP_WHITESPACE, "");
  if (BAD_VALUE.test(text))
    throw new TypeError(`Headers: the value of "${name}" is an invalid header value.`);
  return text;
}
