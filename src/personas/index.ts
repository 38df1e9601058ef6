// Public surface of personas/: the persona evaluation kind — plan, aggregate, result — and evaluatePersonas().
export * from "./aggregate.ts";
export * from "./estimate.ts";
export * from "./evaluate-personas.ts";
export * from "./persona-evaluation.ts";
export * from "./plan.ts";
export type { PropositionLookup } from "./plan-input.ts";
export * from "./result.ts";
export { personaKind } from "./stored-kind.ts";
export type * from "./types.ts";
