// Drift turn by turn: forked probes asked along a conversation, their answers checked, stability per turn.
export * from "./builtin-probes.ts";
export * from "./chat-target.ts";
export * from "./checkers.ts";
export * from "./drift-report.ts";
export * from "./drift-result.ts";
export * from "./language.ts";
export * from "./partner.ts";
export * from "./persona-file.ts";
export * from "./probe.ts";
export * from "./run-drift.ts";
