// Public surface of testing/: helpers for tests and benchmarks that need a model without a network.
export * from "./fake-openai-server.ts";
export * from "./kill-after-calls.ts";
export * from "./synthetic-transcript.ts";
