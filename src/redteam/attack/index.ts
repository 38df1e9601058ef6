// The persona red team: attackers with named strategies and backtracking, per-turn adherence, turns to break.
export * from "./attacker.ts";
export * from "./attacker-check.ts";
export * from "./gated-target.ts";
export * from "./redteam-junit.ts";
export * from "./redteam-report.ts";
export * from "./redteam-result.ts";
export * from "./run-redteam.ts";
export * from "./stored-redteam.ts";
export * from "./strategies.ts";
