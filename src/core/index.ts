// Public surface of core/: domain types, schemas and pure functions shared by every module.

export * from "./concurrency.ts";
export * from "./correction.ts";
export * from "./correction-statistics.ts";
export * from "./dimension.ts";
export * from "./edit-distance.ts";
export * from "./error-reasons.ts";
export * from "./errors.ts";
export * from "./escape.ts";
export * from "./file-patterns.ts";
export * from "./hash.ts";
export * from "./json-text.ts";
export * from "./judge-spec.ts";
export * from "./located-yaml.ts";
export * from "./pass-k.ts";
export * from "./proposition.ts";
export * from "./redact.ts";
export * from "./sample.ts";
export * from "./score.ts";
export * from "./shown-path.ts";
export * from "./store-location.ts";
export * from "./template.ts";
export * from "./trajectory.ts";
export * from "./transcript.ts";
export * from "./transcript-files.ts";
export * from "./verdict.ts";
export * from "./zod-issues.ts";
