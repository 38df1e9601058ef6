// Security headers on every response: a strict Content-Security-Policy (own origin only, no inline
// scripts or styles, no framing), no MIME sniffing, no referrer, and nothing cached that came with a token.
import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";

export function securityHeaders(): MiddlewareHandler {
  const headers = secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", "data:"],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
    // Same-origin: no URL leaks to another site, and a browser's form post keeps its real Origin (with
    // no-referrer, Chromium sends `Origin: null` on every post, which the dashboard's forms must refuse).
    referrerPolicy: "same-origin",
    xFrameOptions: "DENY",
  });
  return async (c, next) => {
    await headers(c, next);
    // Responses are read with a token: no shared cache may keep them.
    c.header("Cache-Control", "no-store");
  };
}
