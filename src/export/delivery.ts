// Sending to a tracing tool's HTTP API: retries for 429 (after its Retry-After) and 5xx or an unreachable server
// (with exponential backoff), a plain ExportAuthError for 401/403, and batches that fail as a whole split until
// the items that fail on their own are found, so one bad score never holds back the others.
import { ExportAuthError } from "./export-score.ts";

/** How to reach the API and how patient to be. */
export interface DeliveryOptions {
  /** The fetch to use (tests pass none: the real one against a local server). */
  fetch?: typeof globalThis.fetch;
  /** Attempts after the first, for 429, 5xx and network errors (default 5). */
  retries?: number;
  /** The first backoff, doubled each retry (default 500 ms), and the longest wait, Retry-After included (30 s). */
  backoffMs?: number;
  maxWaitMs?: number;
  /** How to wait (tests record the waits instead). */
  sleep?: (ms: number) => Promise<void>;
}

/** One request, already built: its headers may hold credentials, which no message ever shows. */
export interface ApiRequest {
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

/** An answer that is neither a success nor worth retrying (a 400, a 404, a 422): the item failed. */
export class RejectedRequest extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(`HTTP ${status}${detail ? `: ${detail}` : ""}`);
    this.name = "RejectedRequest";
  }
}

/** The server could not be reached or kept failing after every retry. */
export class UnavailableApi extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "UnavailableApi";
  }
}

/** Seconds or an HTTP date, as Retry-After allows; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Sends one request and returns its JSON answer (undefined for an empty body). 401/403 throw ExportAuthError
 * with `authHint` (which variables to check); other 4xx throw RejectedRequest; 429, 5xx and network errors are
 * retried and, when retries run out, throw UnavailableApi.
 */
export async function sendRequest(
  request: ApiRequest,
  authHint: string,
  {
    fetch = globalThis.fetch,
    retries = 5,
    backoffMs = 500,
    maxWaitMs = 30_000,
    sleep = sleepFor,
  }: DeliveryOptions = {},
): Promise<unknown> {
  const where = new URL(request.url);
  const place = `${request.method} ${where.origin}${where.pathname}`;
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(request.url, {
        method: request.method,
        headers: {
          accept: "application/json",
          ...(request.body === undefined ? {} : { "content-type": "application/json" }),
          ...request.headers,
        },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      });
    } catch (error) {
      if (attempt >= retries)
        throw new UnavailableApi(`${place}: unreachable (${(error as Error).message ?? String(error)})`);
      await sleep(Math.min(maxWaitMs, backoffMs * 2 ** attempt));
      continue;
    }
    const body = await response.text();
    if (response.ok) return body.trim() === "" ? undefined : safeJson(body);
    if (response.status === 401 || response.status === 403)
      throw new ExportAuthError(
        `${place} answered ${response.status}: the credentials were refused; ${authHint}`,
      );
    const retryable = response.status === 429 || response.status >= 500;
    if (!retryable) throw new RejectedRequest(response.status, detailOf(body));
    if (attempt >= retries)
      throw new UnavailableApi(
        `${place} answered ${response.status} ${retries + 1} times${body ? `: ${detailOf(body)}` : ""}`,
        response.status,
      );
    const asked = response.status === 429 ? retryAfterMs(response.headers.get("retry-after")) : undefined;
    await sleep(Math.min(maxWaitMs, asked ?? backoffMs * 2 ** attempt));
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The first line of an error answer, clipped: enough to say why, never a page of HTML. */
function detailOf(body: string): string {
  const line = body.trim().split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/**
 * Sends a batch with `send`; when the server refuses it as a whole (RejectedRequest), splits it in halves and
 * sends each, down to single items, so the items that fail on their own are found and the others arrive. Each
 * part that arrives is reported to `arrived` at once; the refused items are returned with why. Refused
 * credentials and an unavailable server end the export (what arrived before was reported).
 */
export async function sendSplitting<T>(
  items: readonly T[],
  send: (batch: readonly T[]) => Promise<void>,
  arrived: (item: T) => void,
): Promise<{ item: T; reason: string }[]> {
  if (items.length === 0) return [];
  try {
    await send(items);
    for (const item of items) arrived(item);
    return [];
  } catch (error) {
    if (!(error instanceof RejectedRequest)) throw error;
    if (items.length === 1) return [{ item: items[0]!, reason: error.message }];
    const half = Math.ceil(items.length / 2);
    return [
      ...(await sendSplitting(items.slice(0, half), send, arrived)),
      ...(await sendSplitting(items.slice(half), send, arrived)),
    ];
  }
}
