// Public surface of core/: domain types, schemas and pure functions shared by every module.
export * from "./dimension.ts";
export * from "./errors.ts";
export * from "./escape.ts";
export * from "./hash.ts";
export * from "./judge-spec.ts";
export * from "./proposition.ts";
export * from "./redact.ts";
export * from "./sample.ts";
export * from "./score.ts";
export * from "./store-location.ts";
export * from "./template.ts";
export * from "./trajectory.ts";
export * from "./transcript.ts";
export * from "./verdict.ts";
export * from "./zod-issues.ts";
