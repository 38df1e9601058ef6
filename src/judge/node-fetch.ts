// The `fetch` the judge's provider clients use: one request and its whole answer on node:http or node:https
// with keep-alive connections. The platform's fetch (undici) runs the full Fetch algorithm with web streams
// for every call; for a judge that sends thousands of small JSON requests that was more CPU than the rest of
// a verdict's local work together (profile in bench/RESULTS.md). Anything this does not cover goes to the
// platform's fetch: a Request object or a non-text body, another scheme, and a proxy set in the environment.
// It does not follow redirects (a provider's API answers in place; a 3xx reaches the client as an error).
import http from "node:http";
import https from "node:https";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";

const agents = {
  "http:": new http.Agent({ keepAlive: true }),
  "https:": new https.Agent({ keepAlive: true }),
};

const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"];

/** Statuses whose response has no body (a Response refuses one). */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/** A `fetch` for provider clients (`createOpenAI({ fetch })`); see the file's header for what it covers. */
export const nodeFetch: typeof globalThis.fetch = (input, init = {}) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : undefined;
  const body = init.body;
  if (
    url === undefined ||
    (body != null && typeof body !== "string") ||
    !(url.startsWith("http:") || url.startsWith("https:")) ||
    PROXY_VARIABLES.some((name) => process.env[name])
  )
    return globalThis.fetch(input, init);
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  const target = new URL(url);
  const protocol = target.protocol as keyof typeof agents;
  return new Promise<Response>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      outcome();
    };
    // Network failures look as they do from the platform's fetch: a TypeError "fetch failed" with the cause,
    // which clients treat as retryable.
    const fail = (error: unknown) => settle(() => reject(new TypeError("fetch failed", { cause: error })));
    const request = (protocol === "https:" ? https : http).request(
      target,
      { method: init.method ?? "GET", headers: headerRecord(init.headers), agent: agents[protocol] },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", fail);
        response.on("end", () => {
          try {
            const built = toResponse(response, Buffer.concat(chunks));
            settle(() => resolve(built));
          } catch (error) {
            fail(error);
          }
        });
      },
    );
    const onAbort = () => {
      settle(() => reject(abortReason(signal!)));
      request.destroy();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    request.on("error", fail);
    request.end(body ?? undefined);
  });
};

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

function headerRecord(headers: RequestInit["headers"]): Record<string, string> {
  if (!headers) return {};
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  if (Array.isArray(headers)) return Object.fromEntries(headers.map(([k, v]) => [k!, v!]));
  return headers as Record<string, string>;
}

function toResponse(response: http.IncomingMessage, raw: Buffer): Response {
  const headers = new Headers();
  const pairs = response.rawHeaders;
  for (let i = 0; i + 1 < pairs.length; i += 2) headers.append(pairs[i]!, pairs[i + 1]!);
  const status = response.statusCode ?? 0;
  const encoding = headers.get("content-encoding")?.trim().toLowerCase();
  // Like the platform's fetch, the body is handed over decoded.
  const body =
    encoding === "gzip" || encoding === "x-gzip"
      ? gunzipSync(raw)
      : encoding === "deflate"
        ? inflateSync(raw)
        : encoding === "br"
          ? brotliDecompressSync(raw)
          : raw;
  if (body !== raw) {
    headers.delete("content-encoding");
    headers.delete("content-length");
  }
  return new Response(
    NO_BODY.has(status) ? null : new Uint8Array(body.buffer, body.byteOffset, body.length),
    {
      status,
      statusText: response.statusMessage ?? "",
      headers,
    },
  );
}
