// Public surface of sim/: persona agents, interventions, the step-based world (synthetic mode), and the
// simulation kind's read-back (a stored simulation's document, its report).
export * from "./builtin-interventions.ts";
export * from "./intervention.ts";
export * from "./persona-agent.ts";
export * from "./run-world.ts";
export * from "./simulation-report.ts";
export * from "./simulation-result.ts";
export * from "./stored-kind.ts";
export * from "./world.ts";
export * from "./world-file.ts";
