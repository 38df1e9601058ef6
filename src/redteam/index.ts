// Public surface of redteam/: red-teaming an agent. This far: drift turn by turn (forked probes).
export * from "./drift/index.ts";
