// The library: `import { … } from "dramaturg"`. Formats and score math (core), propositions, judges,
// text statistics, scorers, the store and the regression harness — the same code the CLI runs.
export * from "./core/index.ts";
export * from "./harness/index.ts";
export * from "./judge/index.ts";
export * from "./propositions/index.ts";
export * from "./scorers/index.ts";
export * from "./store/index.ts";
export * from "./testing/index.ts";
export * from "./text/index.ts";
