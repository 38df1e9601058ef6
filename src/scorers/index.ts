// Public surface of scorers/: plan a persona evaluation, execute it against a judge, aggregate scores.
export * from "./aggregate.ts";
export * from "./estimate.ts";
export * from "./execute.ts";
export * from "./plan.ts";
export type { PropositionLookup } from "./plan-input.ts";
export * from "./result.ts";
export type * from "./types.ts";
