// Public surface of judge/: the Judge contract, the fixture judge, the LLM judge, its prompts and providers.

export * from "./create-judge.ts";
export * from "./deferred-model.ts";
export * from "./fixtures.ts";
export * from "./llm-judge.ts";
export * from "./prompt.ts";
export * from "./provider.ts";
export * from "./rate-limit.ts";
export * from "./reachability.ts";
export * from "./recorded-model.ts";
export * from "./semaphore.ts";
export * from "./types.ts";
export * from "./verdict-cache.ts";
