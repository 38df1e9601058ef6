// `converse`'s flags checked, once, into what the run needs: the job files read (every one before anything
// runs), the numbers parsed, the cassettes' folder checked, the project's settings resolved.

import type { ConversationJob } from "../conversations/index.ts";
import { conversationCassetteFile, loadConversationJob } from "../conversations/index.ts";
import { expandFilePatterns, InputError } from "../core/index.ts";
import { Cassette } from "../judge/index.ts";
import type { SimulatedUserPropositionSet } from "../propositions/index.ts";
import { resolveSettings, type Settings } from "./settings.ts";
import { type SimulatorCheckFlags, simulatorCheckOf } from "./simulator-check-flags.ts";
import type { TargetFlags } from "./target-flags.ts";

export interface ConverseFlags extends TargetFlags, SimulatorCheckFlags {
  judge: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  passes: "both" | "without" | "with";
  minScore?: string;
  seed: string;
  /** Jobs run at once. */
  jobs: string;
  /** The old name of `jobs`, hidden: read as it (see the command). */
  concurrency?: string;
  progress?: boolean;
  format: string;
  record?: string;
  replay?: string;
  trials: string;
  out?: string;
  db?: string;
  config?: string;
  queue?: boolean;
  detach?: boolean;
}

export interface ConverseSettings {
  /** The job files in the order given, each read and checked. */
  loaded: { file: string; job: ConversationJob }[];
  minScore?: number;
  seed: number;
  trials: number;
  /** Jobs run at once. */
  jobs: number;
  settings: Settings;
  /** The simulated user's check: a file's propositions (none: the built-in set), or false when it is off. */
  simulatedUser: false | { propositions?: SimulatedUserPropositionSet };
}

/** The flags checked and the jobs read: bad input stops here, before any model is made or store opened. */
export function converseSettings(patterns: string[], flags: ConverseFlags): ConverseSettings {
  const files = expandFilePatterns(patterns, { noun: "conversation job file" });
  const minScore = flags.minScore === undefined ? undefined : Number(flags.minScore);
  if (minScore !== undefined && !(minScore >= -1 && minScore <= 1))
    throw new InputError(`--min-score must be a number from -1 to 1, got "${flags.minScore}"`);
  const seed = Number(flags.seed);
  if (!Number.isInteger(seed)) throw new InputError(`--seed must be a whole number, got "${flags.seed}"`);
  const trials = Number(flags.trials);
  if (!Number.isInteger(trials) || trials < 1 || trials > 100)
    throw new InputError(`--trials must be a whole number from 1 to 100, got "${flags.trials}"`);
  if (flags.record !== undefined && flags.replay !== undefined)
    throw new InputError("--record and --replay exclude each other");
  if (flags.detach && !flags.queue) throw new InputError("--detach goes with --queue", { place: "--detach" });
  // A worker runs the conversation on its own machine: this one's cassettes are not there.
  if (flags.queue && (flags.record !== undefined || flags.replay !== undefined))
    throw new InputError("--queue takes neither --record nor --replay (cassettes are this machine's files)", {
      place: "--queue",
    });
  const cassettes = flags.record ?? flags.replay;
  if (cassettes !== undefined) {
    // Two jobs named alike would share, and overwrite, one cassette.
    const seen = new Map<string, string>();
    for (const file of files) {
      const cassette = conversationCassetteFile(cassettes, file);
      const other = seen.get(cassette);
      if (other !== undefined)
        throw new InputError(`${other} and ${file} would share the cassette ${cassette}: rename one`);
      seen.set(cassette, file);
      // A replay reads every cassette first: a bad third one stops the first job too.
      if (flags.replay !== undefined) Cassette.replay(cassette);
    }
  }
  if (flags.userModel === undefined && flags.replay === undefined)
    throw new InputError("--user-model is required (unless --replay gives the simulated user's answers)");
  // Every job file is checked before anything runs: a mistake in the third stops the first too.
  const loaded = files.map((file) => ({ file, job: loadConversationJob(file) }));
  const jobs = Number(flags.jobs);
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 64)
    throw new InputError(`--jobs must be a whole number from 1 to 64, got "${flags.jobs}"`);
  // A file's propositions are read here, once: a queued run carries them to its workers, which never see it.
  const simulatedUser = simulatorCheckOf(flags, "user");
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  return { loaded, minScore, seed, trials, jobs, settings, simulatedUser };
}
