// Public surface of server/: the HTTP app over a store (JSON API, OpenAPI document, token, security
// headers), and starting it on a port.

// The static HTML report is the dashboard's pages in one file: it belongs with the app that renders them.
export { type StaticReportOptions, staticReport } from "../web/index.ts";
export { ApiError, type ApiErrorBody } from "./api-error.ts";
export { createServerApp, type ServerAppOptions } from "./create-server-app.ts";
export { checkHost, isLoopback } from "./host.ts";
export { type RunningServer, type StartServerOptions, startServer } from "./start-server.ts";
export { TOKEN_ENV } from "./token.ts";
