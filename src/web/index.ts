// Public surface of web/: the dashboard's server-rendered pages as a Hono app, which the server mounts.
export { misdirectedPage, signInThrottledPage, signOutPage } from "./access-pages.ts";
export type { DashboardContext } from "./dashboard-context.ts";
export { type DashboardOptions, dashboardRoutes } from "./dashboard-routes.ts";
export { postedFromThisSite } from "./form-origin.ts";
export { type LoginPageOptions, loginPage } from "./login-page.ts";
export { type StaticReportOptions, staticReport } from "./static-report.ts";
