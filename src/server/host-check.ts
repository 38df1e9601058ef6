// The Host header against the names this server answers to, so that a web page whose domain was rebound
// to this machine's address (DNS rebinding) cannot read the API or post to it: the browser then still sends
// the page's own domain as Host, and gets 421 Misdirected Request before any route runs.
import { isIPv6 } from "node:net";
import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import { InputError } from "../core/index.ts";
import { misdirectedPage } from "../web/index.ts";
import type { ApiErrorBody } from "./api-error.ts";

/** A host name and, when it must match too, a port. */
interface HostName {
  name: string;
  port?: number;
}

/** The names of this machine's loopback interface: only a browser on this machine can send them. */
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/** Addresses that listen on every interface: they say nothing about the name clients use. */
const WILDCARDS = new Set(["", "0.0.0.0", "::", "[::]"]);

const DNS_NAME =
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** `name`, `name:port`, `[v6]`, `[v6]:port`, lower-cased, a trailing dot dropped; undefined if none of these. */
export function parseHostName(text: string): HostName | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(text.trim().toLowerCase());
  if (!match) return undefined;
  const [, rawName = "", rawPort] = match;
  const name = rawName.endsWith(".") ? rawName.slice(0, -1) : rawName;
  const port = rawPort === undefined ? undefined : Number(rawPort);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  const valid = name.startsWith("[") ? isIPv6(name.slice(1, -1)) : DNS_NAME.test(name);
  return valid ? { name, ...(port === undefined ? {} : { port }) } : undefined;
}

/** One `--allowed-host`: a name (any port) or `name:port` (that port only); a bare IPv6 address is bracketed. */
const allowedHostSchema = z
  .string()
  .transform((text) => (isIPv6(text) ? `[${text}]` : text))
  .transform((text, ctx) => {
    const host = parseHostName(text);
    if (host === undefined) {
      ctx.addIssue({ code: "custom", message: "not a host name" });
      return z.NEVER;
    }
    return host;
  });

/**
 * The host names a server answers to: the loopback names, the address it is bound to unless that is a
 * wildcard (0.0.0.0, ::), and each allowed host. Throws an InputError naming a malformed allowed host.
 */
export function acceptedHosts(
  boundHost: string | undefined,
  allowedHosts: readonly string[] = [],
): HostName[] {
  const accepted: HostName[] = LOOPBACK_NAMES.map((name) => ({ name }));
  const bound = boundHost?.trim().toLowerCase() ?? "";
  if (!WILDCARDS.has(bound)) {
    const host = parseHostName(isIPv6(bound) ? `[${bound}]` : bound);
    if (host !== undefined) accepted.push({ name: host.name });
  }
  for (const text of allowedHosts) {
    const parsed = allowedHostSchema.safeParse(text);
    if (!parsed.success)
      throw new InputError(
        `expected a host name, optionally with a port (dashboard.example.com, 10.0.0.5:4477, [fd00::1]), got "${text}"`,
        { place: "--allowed-host" },
      );
    accepted.push(parsed.data);
  }
  return accepted;
}

/** Whether a Host header names one of the accepted hosts. */
export function hostAccepted(header: string, accepted: readonly HostName[]): boolean {
  const host = parseHostName(header);
  return (
    host !== undefined &&
    accepted.some((a) => a.name === host.name && (a.port === undefined || a.port === host.port))
  );
}

/**
 * Refuses a request whose Host is not accepted: 421, in the API's error shape under /api, else a short page.
 * Without a Host header (app.request() in code, HTTP/1.0) the request URL's host stands in.
 */
export function checkHostHeader(accepted: readonly HostName[]): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header("host") ?? new URL(c.req.url).host;
    if (hostAccepted(header, accepted)) return next();
    const shown = header.slice(0, 200);
    const message = `this server does not answer to the host "${shown}"; if that name should reach it, start it with --allowed-host ${shown}`;
    if (c.req.path === "/api" || c.req.path.startsWith("/api/")) {
      const body: ApiErrorBody = { error: { code: "misdirected_request", message } };
      return c.json(body, 421);
    }
    return c.html(misdirectedPage({ host: shown }), 421);
  };
}
