// The sign-in form's brake: per client, at most `limit` wrong tokens in a sliding window; past it every try,
// right or wrong, is refused (429) until the oldest wrong one leaves the window. Refusing the right token too
// is the point: answering it would tell a guesser which of its unlimited guesses hit. Memory is bounded:
// at most `limit` times per client and `maxClients` clients, the stalest forgotten first.
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";

export interface SignInThrottleOptions {
  /** Wrong tokens a client may send within the window. Default 20. */
  limit?: number;
  /** The window, in milliseconds. Default one minute. */
  windowMs?: number;
  /** Clients remembered at once. Default 10,000. */
  maxClients?: number;
  /** The clock, in milliseconds; tests pass one they move. */
  now?: () => number;
}

export class SignInThrottle {
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly maxClients: number;
  private readonly now: () => number;
  /** client → times of its wrong tokens within the window, oldest first; least recently wrong client first. */
  private readonly wrong = new Map<string, number[]>();

  constructor({
    limit = 20,
    windowMs = 60_000,
    maxClients = 10_000,
    now = Date.now,
  }: SignInThrottleOptions = {}) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.maxClients = maxClients;
    this.now = now;
  }

  /** Seconds until `client` may try again, or undefined when it may try now. */
  retryAfter(client: string): number | undefined {
    const times = this.recent(client);
    if (times.length < this.limit) return undefined;
    const oldest = times[times.length - this.limit]!;
    return Math.max(1, Math.ceil((oldest + this.windowMs - this.now()) / 1000));
  }

  /** Counts a wrong token from `client`. */
  failed(client: string): void {
    const times = this.recent(client);
    times.push(this.now());
    this.wrong.delete(client);
    if (this.wrong.size >= this.maxClients) this.forgetStale();
    this.wrong.set(client, times.slice(-this.limit));
  }

  /** A right token: the client's slate is clean. */
  succeeded(client: string): void {
    this.wrong.delete(client);
  }

  /** Clients remembered now (for tests of the bound). */
  get clients(): number {
    return this.wrong.size;
  }

  private recent(client: string): number[] {
    const since = this.now() - this.windowMs;
    return (this.wrong.get(client) ?? []).filter((t) => t > since);
  }

  /** Drops clients whose every wrong try left the window; if none did, the least recently wrong one. */
  private forgetStale(): void {
    const since = this.now() - this.windowMs;
    for (const [client, times] of this.wrong) if (times.at(-1)! <= since) this.wrong.delete(client);
    if (this.wrong.size >= this.maxClients) this.wrong.delete(this.wrong.keys().next().value as string);
  }
}

/**
 * Who is signing in: the socket's remote address, an IPv6 one by its /64 (one machine usually holds a whole
 * /64, so it must not get a fresh budget per address). `app.request()` has no socket: one client, "local".
 * Behind a reverse proxy every visitor shares the proxy's address, and so its budget: it fails closed.
 */
export function signInClient(c: Context): string {
  let address: string | undefined;
  try {
    address = getConnInfo(c).remote.address;
  } catch {
    // No Node socket under the request (app.request() in tests and embedders).
  }
  if (!address) return "local";
  const v4 = /^(?:::ffff:)?(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (v4) return v4[1]!;
  return `${ipv6Groups(address).slice(0, 4).join(":")}::/64`;
}

/** The eight groups of an IPv6 address, `::` expanded and zero-padded. */
function ipv6Groups(address: string): string[] {
  const [head = "", tail] = address.toLowerCase().replace(/%.*$/, "").split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const middle =
    tail === undefined ? [] : Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0");
  return [...left, ...middle, ...right].map((g) => g.padStart(4, "0"));
}
