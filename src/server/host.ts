// Where the server may listen: loopback needs nothing, any other address serves other machines and so
// needs the token — without one, the server refuses to start (bad usage, exit code 2).
import { InputError } from "../core/index.ts";
import { TOKEN_ENV } from "./token.ts";

/** Whether a host names this machine only: localhost, 127.0.0.0/8 or ::1. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return h === "localhost" || h === "::1" || /^127(?:\.\d{1,3}){3}$/.test(h);
}

/** Throws an InputError when `host` is reachable from other machines and no token protects it. */
export function checkHost(host: string, token: string | undefined): void {
  if (isLoopback(host) || (token !== undefined && token !== "")) return;
  throw new InputError(
    `refusing to serve on ${host} without a token: anyone who can reach it could read the store. Set ${TOKEN_ENV} (requests then need it), or serve on 127.0.0.1`,
    { place: "--host" },
  );
}
