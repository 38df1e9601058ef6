// Whether a form post comes from this server's own pages: the check every state-changing form of the
// dashboard (signing out, saving a label) makes before it changes anything.

/**
 * Whether a form post comes from this server's own pages. A browser's `Sec-Fetch-Site` says so when it sends
 * one (it cannot be set by a page): `same-origin`. Without it, the Origin header: absent (not a browser, or
 * one that sends none on same-origin posts), or one whose host is the request's. The scheme is not compared,
 * so a proxy that ends TLS in front of the server does not make every form post cross-origin.
 *
 * Sec-Fetch-Site comes first: a browser sends it to loopback and https origins and a page cannot forge it.
 * The server's `Referrer-Policy: same-origin` keeps the Origin of its own pages' posts elsewhere (with
 * `no-referrer`, Chromium sends `Origin: null`, refused here).
 */
export function postedFromThisSite(request: {
  header(name: string): string | undefined;
  url: string;
}): boolean {
  const site = request.header("sec-fetch-site");
  if (site !== undefined) return site === "same-origin";
  return sameOrigin(request.header("origin"), request.header("host") ?? new URL(request.url).host);
}

/** Whether an Origin header is absent or names the host of the request. */
export function sameOrigin(origin: string | undefined, host: string): boolean {
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false; // "null" (a sandboxed or privacy-stripped origin) and anything unparsable
  }
}
