// Inputs of planning: which propositions apply, which agents and messages are in scope.
import type { PersonaDimension, PropositionSet } from "../core/index.ts";

export type { AgentScope } from "./types.ts";

/** The proposition set for a dimension and agent (agent dimensions) or for channels (environment). */
export type PropositionLookup = (dimension: PersonaDimension, agentId?: string) => PropositionSet | undefined;
