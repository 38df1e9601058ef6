// The session kind: multi-agent sessions in (our format, ReAsk's, OpenAI chat logs), tool calls checked
// against each agent's tools, per-agent and overall scores by the seed's formulas, recommendations.
export * from "./analysis.ts";
export * from "./analyze.ts";
export * from "./expected-calls.ts";
export * from "./formulas.ts";
export * from "./importers/index.ts";
export * from "./judged.ts";
export * from "./latency.ts";
export * from "./recommendations.ts";
export * from "./session-format.ts";
export { renderSessionMarkdown, renderSessionTable, score as sessionScore } from "./session-report.ts";
export * from "./session-transcript.ts";
export { sessionKind } from "./stored-kind.ts";
export * from "./tool-validation.ts";
export * from "./trajectory-match.ts";
