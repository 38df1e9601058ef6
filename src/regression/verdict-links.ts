// Where a run's verdicts are on the dashboard: the one shape of the links that lead from "a proposition that
// fell" or "a dimension that regressed" to the run page's verdicts of it. The pages use these paths as they
// are; the CI reports (Markdown, HTML) make them absolute on the dashboard's base URL (`--dashboard-url`).

/** The id of a proposition's verdicts table on a run page: sorting and paging links come back to it. */
export const propositionTableAnchor = (dimension: string, propositionId: string) =>
  `p-${dimension}-${propositionId}`;

/** The id of a dimension's verdicts on a run page. */
export const dimensionVerdictsAnchor = (dimension: string) => `verdicts-${dimension}`;

/** A run's page path with query parameters, in the dashboard's encoding (`URLSearchParams`). */
function runPath(runId: string, params: Record<string, string>): string {
  return `/runs/${runId}?${new URLSearchParams(params).toString()}`;
}

/** A run's verdicts of one proposition, all of them, at its table: where "a proposition that fell" leads. */
export function propositionVerdictsPath(runId: string, dimension: string, propositionId: string): string {
  return `${runPath(runId, { p: `${dimension}/${propositionId}` })}#${propositionTableAnchor(dimension, propositionId)}`;
}

/** A run's page opened at the dimension that fell: its verdicts only, lowest first. */
export function dimensionVerdictsPath(runId: string, dimension: string): string {
  return `${runPath(runId, { dimension })}#${dimensionVerdictsAnchor(dimension)}`;
}

/** A run's page. */
export const runPagePath = (runId: string) => `/runs/${runId}`;

/**
 * A dashboard path made absolute on its base URL (`https://dramaturg.example.com/team/`, with or without its
 * trailing slash): the links a CI report gives when it knows where the dashboard is.
 */
export function dashboardLink(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, "")}${path}`;
}
