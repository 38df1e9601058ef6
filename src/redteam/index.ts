// Public surface of redteam/: red-teaming an agent. This far: drift turn by turn (forked probes), stored as
// the `drift` kind.
export * from "./drift/index.ts";
export * from "./drift/stored-drift.ts";
export { driftKind } from "./stored-kind.ts";
