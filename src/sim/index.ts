// Public surface of sim/: persona agents, interventions and the step-based world (synthetic mode).
export * from "./builtin-interventions.ts";
export * from "./intervention.ts";
export * from "./persona-agent.ts";
export * from "./simulate.ts";
export * from "./world.ts";
export * from "./world-file.ts";
