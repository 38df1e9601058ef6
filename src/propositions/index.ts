// Public surface of propositions/: load, validate and merge proposition YAML; the built-in sets;
// claim templating and preconditions; YAML validation with line numbers (also used for other YAML files).

// The window defaults live in core (they are part of the format); re-exported where the format is read.
export { ACTION_LEVEL_WINDOW_DEFAULTS, EVALUATION_WINDOW_DEFAULTS } from "../core/index.ts";
export {
  BUILTIN_PROPOSITIONS_DIR,
  BUILTIN_SUITABILITY_FILE,
  builtinPropositionFilePath,
  builtinPropositionSet,
  builtinSource,
  builtinSuitabilitySet,
  type SuitabilityPropositionSet,
} from "./builtin-sets.ts";
export { type ClaimVariables, claimVariables, renderClaim } from "./claim.ts";
export {
  type LoadedPropositions,
  type LoadPropositionsOptions,
  loadPropositions,
  propositionSetFor,
} from "./load-propositions.ts";
export { evaluatePrecondition, type Precondition, withPrecondition } from "./precondition.ts";
export {
  DEFAULT_FILE_NAME,
  loadPropositionFile,
  PROPOSITION_FILE_EXTENSIONS,
  parsePropositionFile,
  targetTypeOf,
} from "./proposition-file.ts";
export {
  PROPOSITION_SET_DEFAULTS,
  propositionSetHash,
  resolvePropositionSet,
  type SourcedPropositionFile,
} from "./proposition-set.ts";
export {
  ATTACKER_CLAIM_VARIABLES,
  BUILTIN_ATTACKER_FILE,
  BUILTIN_SIMULATED_USER_FILE,
  loadSimulatedUserSet,
  SIMULATED_USER_CLAIM_VARIABLES,
  SIMULATED_USER_WHEN,
  type SimulatedRole,
  type SimulatedUserProposition,
  type SimulatedUserPropositionFile,
  SimulatedUserPropositionFileSchema,
  type SimulatedUserPropositionSet,
  simulatedUserSetOf,
} from "./simulated-user-set.ts";
