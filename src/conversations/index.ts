// The conversation kind: a job (simulated user, tasks, facts, assertions) run against a live agent.
// This far: the job format, read and checked.

export * from "./agent-client.ts";
export * from "./assertions.ts";
export * from "./cassette.ts";
export * from "./composite.ts";
export * from "./conversation-jobs.ts";
export * from "./conversation-loop.ts";
export {
  jobScore,
  num as conversationNumber,
  renderConversationMarkdown,
  renderConversationTable,
  renderTrials,
} from "./conversation-report.ts";
export * from "./cypher.ts";
export * from "./job.ts";
export * from "./run-conversation.ts";
export * from "./simulated-user.ts";
export * from "./simulated-user-check.ts";
export { conversationKind } from "./stored-kind.ts";
