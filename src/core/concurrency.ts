// The one default of "judge calls in flight at once", shared by the run (engine), a judge made alone
// (judge) and the CLI's settings, so that one setting means the same everywhere.

/** Judge calls in flight at once when nobody sets a number. */
export const DEFAULT_CONCURRENCY = 16;
