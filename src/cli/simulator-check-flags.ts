// The simulated user's check as `converse`'s and `redteam`'s flags set it: off (--no-simulator-check), a file's
// propositions (--simulator-propositions, read here once: a queued run carries them whole), or the built-in set
// of the role (an empty option). Contradicting flags stop here, before anything runs.
import { InputError } from "../core/index.ts";
import {
  loadSimulatedUserSet,
  type SimulatedRole,
  type SimulatedUserPropositionSet,
} from "../propositions/index.ts";

export interface SimulatorCheckFlags {
  /** Exit 1 when a simulated user (converse's user, redteam's attacker) broke its brief. */
  failOnSimulatorFault?: boolean;
  /** False with --no-simulator-check. */
  simulatorCheck?: boolean;
  simulatorPropositions?: string;
}

export function simulatorCheckOf(
  flags: SimulatorCheckFlags,
  role: SimulatedRole,
): false | { propositions?: SimulatedUserPropositionSet } {
  if (flags.simulatorCheck === false && flags.simulatorPropositions !== undefined)
    throw new InputError("--no-simulator-check and --simulator-propositions exclude each other", {
      place: "--simulator-propositions",
    });
  if (flags.simulatorCheck === false && flags.failOnSimulatorFault)
    throw new InputError("--fail-on-simulator-fault needs the simulator check: drop --no-simulator-check", {
      place: "--fail-on-simulator-fault",
    });
  if (flags.simulatorCheck === false) return false;
  return flags.simulatorPropositions === undefined
    ? {}
    : { propositions: loadSimulatedUserSet(flags.simulatorPropositions, role) };
}
