// Public surface of redteam/: red-teaming an agent. Drift turn by turn (forked probes), stored as the `drift`
// kind; the persona red team (attack strategies with backtracking, turns to break), stored as `redteam`.
export * from "./attack/index.ts";
export * from "./drift/index.ts";
export * from "./drift/stored-drift.ts";
export { driftKind, redteamKind } from "./stored-kind.ts";
