// The `fetch` the judge's provider clients use: one request and its whole answer on node:http or node:https
// with keep-alive connections. The platform's fetch (undici) runs the full Fetch algorithm with web streams
// for every call; for a judge that sends thousands of small JSON requests that was more CPU than the rest of
// a verdict's local work together (profile in bench/RESULTS.md). Anything this does not cover goes to the
// platform's fetch: a Request object or a non-text body, another scheme, and a proxy set in the environment.
// It does not follow redirects (a provider's API answers in place; a 3xx reaches the client as an error).
import http from "node:http";
import type https from "node:https";
import { createRequire } from "node:module";
import type { ReadableStreamReadResult, ReadableWritablePair, StreamPipeOptions } from "node:stream/web";
import { urlToHttpOptions } from "node:url";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { answered, beforeSending } from "./answered.ts";

interface Transport {
  client: typeof http;
  agent: http.Agent;
}

const HTTP: Transport = { client: http, agent: new http.Agent({ keepAlive: true }) };
/**
 * node:https and its agent, made at the first https call: with node:tls it is ≈ 2.4 ms of start-up (Node 24)
 * that a judge on http://127.0.0.1 never needs.
 */
let secure: Transport | undefined;

function transportOf(protocol: string): Transport {
  if (protocol !== "https:") return HTTP;
  if (secure === undefined) {
    const client = createRequire(import.meta.url)("node:https") as typeof https;
    secure = { client: client as unknown as typeof http, agent: new client.Agent({ keepAlive: true }) };
  }
  return secure;
}

/**
 * Request options of each URL called, parsed once: given a URL object, node:http parses and converts it on
 * every request, ≈ 13 µs of the ≈ 75 µs a request costs this side (5,000 requests to a local server).
 */
const targets = new Map<string, http.RequestOptions>();
const MAX_TARGETS = 64;

function targetOf(url: string): http.RequestOptions {
  let target = targets.get(url);
  if (target === undefined) {
    if (targets.size >= MAX_TARGETS) targets.clear();
    target = urlToHttpOptions(new URL(url));
    targets.set(url, target);
  }
  return target;
}

const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"];

/** Statuses whose response has no body (a Response refuses one). */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * A `fetch` for provider clients (`createOpenAI({ fetch })`); see the file's header for what it covers. A
 * request whose call takes its judge's slot at the transport waits for it here, built (answered.ts).
 */
export const nodeFetch: typeof globalThis.fetch = (input, init = {}) => {
  const slot = beforeSending(init.signal);
  return slot ? slot.then(() => send(input, init)) : send(input, init);
};

const send: typeof globalThis.fetch = (input, init = {}) => {
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
  const target = targetOf(url);
  const { client, agent } = transportOf(target.protocol!);
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
    const request = client.request(
      {
        ...target,
        method: init.method ?? "GET",
        headers: headerRecord(init.headers),
        agent,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", fail);
        response.on("end", () => {
          // The call's concurrency slot is free now (answered.ts): the next request goes out at once, and
          // this answer is handed over in the event loop's check phase, after the answers that arrived with
          // it have freed their slots too; none of them is parsed before those requests are out.
          answered(signal);
          try {
            const built = toResponse(response, Buffer.concat(chunks), url);
            setImmediate(() => settle(() => resolve(built)));
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

/**
 * The request's headers as a record. A Headers is known by its `entries` method rather than by
 * `instanceof Headers`: naming the global makes Node load its fetch (undici), ≈ 14–19 ms of start-up
 * that a record, what the providers pass, does not need.
 */
function headerRecord(headers: RequestInit["headers"]): Record<string, string> {
  if (!headers) return {};
  if (Array.isArray(headers)) return Object.fromEntries(headers.map(([k, v]) => [k!, v!]));
  if (typeof (headers as Headers).entries === "function")
    return Object.fromEntries((headers as Headers).entries());
  return headers as Record<string, string>;
}

function toResponse(response: http.IncomingMessage, raw: Buffer, url: string): Response {
  const headers = new AnswerHeaders(response.rawHeaders);
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
  if (body !== raw) headers.dropEncoding();
  const bytes = NO_BODY.has(status) ? null : new Uint8Array(body.buffer, body.byteOffset, body.length);
  return new AnswerResponse(url, status, response.statusMessage ?? "", headers, bytes) as unknown as Response;
}

/**
 * A response's headers as fetch's `Headers` show them, read-only: names lower-cased, a repeated header's
 * values joined by ", ", iterated in name order (each set-cookie on its own).
 */
class AnswerHeaders {
  readonly #values = new Map<string, string>();
  readonly #cookies: string[] = [];

  constructor(raw: readonly string[]) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      const value = raw[i + 1]!;
      if (name === "set-cookie") this.#cookies.push(value);
      const before = this.#values.get(name);
      this.#values.set(name, before === undefined ? value : `${before}, ${value}`);
    }
  }

  /** After decoding, the body's encoding and length no longer apply (as with fetch). */
  dropEncoding(): void {
    this.#values.delete("content-encoding");
    this.#values.delete("content-length");
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }
  getSetCookie(): string[] {
    return [...this.#cookies];
  }
  forEach(callback: (value: string, name: string, headers: AnswerHeaders) => void, thisArg?: unknown): void {
    for (const [name, value] of this) callback.call(thisArg, value, name, this);
  }
  *entries(): IterableIterator<[string, string]> {
    const names = [...this.#values.keys()].sort();
    for (const name of names)
      if (name === "set-cookie") for (const cookie of this.#cookies) yield [name, cookie];
      else yield [name, this.#values.get(name)!];
  }
  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }
  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
  append(): never {
    throw new TypeError("immutable");
  }
  set(): never {
    throw new TypeError("immutable");
  }
  delete(): never {
    throw new TypeError("immutable");
  }
}

/**
 * A whole answer, already read, with what a client uses of a `Response`: status, headers, the body as a
 * stream or read at once, a clone. Built per call instead of the platform's Response, whose body stream
 * and headers cost ≈ 8% of a verdict's CPU on Node 20 (see AnswerBody for the stream).
 */
class AnswerResponse {
  readonly type = "basic";
  readonly redirected = false;
  readonly #bytes: Uint8Array | null;
  #body: AnswerBody | null | undefined;
  #used = false;

  constructor(
    readonly url: string,
    readonly status: number,
    readonly statusText: string,
    readonly headers: AnswerHeaders,
    bytes: Uint8Array | null,
  ) {
    this.#bytes = bytes;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }
  get bodyUsed(): boolean {
    return this.#used;
  }
  get body(): ReadableStream<Uint8Array> | null {
    if (this.#body === undefined) this.#body = this.#bytes === null ? null : answerBody(() => this.take());
    return this.#body as unknown as ReadableStream<Uint8Array> | null;
  }
  /** The bytes, once: a second read is fetch's TypeError. */
  take(): Uint8Array {
    if (this.#used) throw new TypeError("Body is unusable: Body has already been read");
    this.#used = true;
    return this.#bytes ?? new Uint8Array(0);
  }
  async bytes(): Promise<Uint8Array> {
    return this.take().slice();
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    return (await this.bytes()).buffer as ArrayBuffer;
  }
  async text(): Promise<string> {
    return new TextDecoder().decode(this.take());
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
  async blob(): Promise<Blob> {
    return new Blob([(await this.bytes()) as Uint8Array<ArrayBuffer>], {
      type: this.headers.get("content-type") ?? "",
    });
  }
  clone(): AnswerResponse {
    if (this.#used) throw new TypeError("Response.clone: Body has already been consumed.");
    return new AnswerResponse(this.url, this.status, this.statusText, this.headers, this.#bytes);
  }
}

let answerBodyLinked = false;

/**
 * An answer's body. AnswerBody's prototype chain goes through ReadableStream's (so that `instanceof` holds),
 * linked when the first body is made: naming ReadableStream loads Node's web streams, ≈ 3.6 ms of start-up
 * on Node 24 before the first request, which does not need them.
 */
function answerBody(take: () => Uint8Array): AnswerBody {
  if (!answerBodyLinked) {
    Object.setPrototypeOf(AnswerBody.prototype, ReadableStream.prototype);
    answerBodyLinked = true;
  }
  return new AnswerBody(take);
}

/**
 * The body as a `ReadableStream` (`instanceof` holds), made light: a default reader, which is how provider
 * clients read a whole answer, hands over the bytes as one chunk without the platform's stream, whose
 * making and reading cost ≈ 6% of a verdict's CPU on Node 20. Any other use (pipeThrough, pipeTo, tee,
 * async iteration, a BYOB reader) goes to a real stream of the same bytes, made then.
 */
class AnswerBody {
  readonly #take: () => Uint8Array;
  #real: ReadableStream<Uint8Array> | undefined;
  #reader = false;

  constructor(take: () => Uint8Array) {
    this.#take = take;
  }

  get locked(): boolean {
    return this.#real ? this.#real.locked : this.#reader;
  }
  getReader(options?: { mode?: "byob" }): ReadableStreamDefaultReader<Uint8Array> {
    if (this.#real || options?.mode === "byob")
      return this.stream().getReader(options as undefined) as ReadableStreamDefaultReader<Uint8Array>;
    if (this.#reader) throw new TypeError("ReadableStream is locked");
    this.#reader = true;
    // Read or cancelled: either way the reader has nothing more (a cancelled body stays unread).
    let finished = false;
    const reader = {
      closed: Promise.resolve(undefined),
      read: async (): Promise<ReadableStreamReadResult<Uint8Array>> => {
        if (finished) return { done: true, value: undefined };
        finished = true;
        const bytes = this.#take();
        return bytes.length > 0 ? { done: false, value: bytes } : { done: true, value: undefined };
      },
      cancel: async (): Promise<void> => {
        finished = true;
      },
      releaseLock: (): void => {
        this.#reader = false;
      },
    };
    return reader as unknown as ReadableStreamDefaultReader<Uint8Array>;
  }
  async cancel(): Promise<void> {
    if (this.locked) throw new TypeError("ReadableStream is locked");
  }
  pipeThrough<T>(
    transform: ReadableWritablePair<T, Uint8Array>,
    options?: StreamPipeOptions,
  ): ReadableStream<T> {
    return this.stream().pipeThrough(transform, options);
  }
  pipeTo(destination: WritableStream<Uint8Array>, options?: StreamPipeOptions): Promise<void> {
    return this.stream().pipeTo(destination, options);
  }
  tee(): [ReadableStream<Uint8Array>, ReadableStream<Uint8Array>] {
    return this.stream().tee();
  }
  values(options?: { preventCancel?: boolean }): AsyncIterableIterator<Uint8Array> {
    return this.stream().values(options);
  }
  [Symbol.asyncIterator](): AsyncIterableIterator<Uint8Array> {
    return this.stream().values();
  }

  /** The real stream, made once, read when asked (no high-water mark: until then the body is unused). */
  private stream(): ReadableStream<Uint8Array> {
    if (this.#reader) throw new TypeError("ReadableStream is locked");
    this.#real ??= new ReadableStream<Uint8Array>(
      {
        pull: (controller) => {
          try {
            const bytes = this.#take();
            if (bytes.length > 0) controller.enqueue(bytes);
            controller.close();
          } catch (error) {
            controller.error(error);
          }
        },
      },
      { highWaterMark: 0 },
    );
    return this.#real;
  }
}
