// `dramaturg/testing`: helpers for tests and benchmarks that need a judge without a network — a fake
// OpenAI-compatible server for the real provider clients, judges built in code, synthetic transcripts.
export * from "./fake-openai-server.ts";
export * from "./fixture-judges.ts";
export * from "./kill-after-calls.ts";
export * from "./synthetic-transcript.ts";
