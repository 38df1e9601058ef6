// Starts the HTTP server on a store location: checks the host, the token and the allowed hosts before it
// opens the store, listens, and hands back the URL and a close that stops listening, ends open connections
// and closes the store.
import type { AddressInfo } from "node:net";
import { InputError, type StoreLocation } from "../core/index.ts";
import { openStore, type Store } from "../store/index.ts";
import { createServerApp, type ServerAppOptions } from "./create-server-app.ts";
import { checkHost } from "./host.ts";
import { acceptedHosts } from "./host-check.ts";
import { checkToken } from "./token.ts";

export interface StartServerOptions extends Omit<ServerAppOptions, "store"> {
  /** The store: a location (PGlite folder, `postgres://…`, `memory://`) or an open store (left open on close). */
  db: string | StoreLocation | Store;
  /**
   * Default 127.0.0.1. Any other than loopback needs `token`. Requests must name it in their Host header
   * (a wildcard, 0.0.0.0 or ::, names nothing), a loopback name, or one of `allowedHosts`.
   */
  host?: string;
  /** Default 4477; 0 picks a free port. */
  port?: number;
}

export interface RunningServer {
  /** Where it listens, e.g. `http://127.0.0.1:4477`. Never carries the token. */
  url: string;
  close(): Promise<void>;
}

/** Why the server could not listen, the flag at fault and what to do, by the socket's error code. */
const LISTEN_FAILURES: Readonly<Record<string, { why: string; flag: string; fix: string }>> = {
  EADDRINUSE: {
    why: "the port is in use",
    flag: "--port",
    fix: "stop what listens there, or choose another port with --port (0 picks a free one)",
  },
  EACCES: {
    why: "no permission to use the port",
    flag: "--port",
    fix: "choose a port above 1023 with --port",
  },
  EADDRNOTAVAIL: { why: "the address is not one of this machine's", flag: "--host", fix: "check --host" },
};

const isStore = (db: StartServerOptions["db"]): db is Store =>
  typeof db === "object" && "runs" in db && "close" in db;

export async function startServer({
  db,
  host = "127.0.0.1",
  port = 4477,
  ...app
}: StartServerOptions): Promise<RunningServer> {
  checkHost(host, app.token);
  checkToken(app.token);
  acceptedHosts(host, app.allowedHosts);
  const token = app.token === "" ? undefined : app.token;
  // Loaded here, not with the module: `import("dramaturg")` should not pay for an HTTP server it may not start.
  const { serve } = await import("@hono/node-server");
  const owned = !isStore(db);
  const store = isStore(db) ? db : await openStore(db);
  try {
    const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
      const s = serve(
        { fetch: createServerApp({ ...app, token, host, store }).fetch, hostname: host, port },
        () => resolve(s),
      );
      s.once("error", (error: NodeJS.ErrnoException) => {
        const failure = error.code ? LISTEN_FAILURES[error.code] : undefined;
        reject(
          failure
            ? new InputError(
                `cannot listen on ${host}:${port}: ${failure.why} (${error.code}); ${failure.fix}`,
                {
                  place: failure.flag,
                  cause: error,
                },
              )
            : error,
        );
      });
    });
    const address = server.address() as AddressInfo;
    const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
    return {
      url: `http://${host === "localhost" ? host : shown}:${address.port}`,
      close: async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          if ("closeAllConnections" in server) server.closeAllConnections();
        });
        if (owned) await store.close();
      },
    };
  } catch (error) {
    if (owned) await store.close();
    throw error;
  }
}
