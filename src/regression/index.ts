// Public surface of regression/: golden baselines, the regression rule, and the CI reports (table,
// Markdown pull-request comment, JUnit XML), the GitHub Action's comment and job summary, plus an agent's
// score history.
export * from "./agreement-check.ts";
export * from "./baseline.ts";
export * from "./compare.ts";
export * from "./github-comment.ts";
export * from "./history.ts";
export * from "./measurement.ts";
export * from "./replay.ts";
export * from "./report-junit.ts";
export * from "./report-markdown.ts";
export * from "./report-table.ts";
export * from "./verdict-links.ts";
