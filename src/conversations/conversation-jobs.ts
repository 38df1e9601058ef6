// Several conversation jobs in one go, as `converse` runs them: each job's trials (runConversationTrials), a
// few jobs at once, a job that cannot complete kept with its error while the others go on; and the exit
// code their outcome stands for, wherever they ran (in this process or on workers).
import { DramaturgError, pool } from "../core/index.ts";
import type { ConversationJob } from "./job.ts";
import type { PassName } from "./run-conversation.ts";
import {
  type ConversationTrials,
  type ConversationTrialsOptions,
  runConversationTrials,
} from "./run-conversation.ts";

/** Each job's trials (in the order of the jobs), or, for the jobs that could not complete, why. */
export interface ConversationJobsOutcome {
  /** Each job's trials, in the order of the jobs; undefined for a job that could not complete. */
  slots: (ConversationTrials | undefined)[];
  /** The jobs that could not complete, with the error that stopped each. */
  failures: { job: string; error: unknown }[];
}

export interface ConversationJobsOptions
  extends Omit<ConversationTrialsOptions, "name" | "onTrial" | "onTurn"> {
  /** Jobs run at once. Default 1. */
  jobs?: number;
  /** Called after each exchange of a job's pass (live progress), with the trial under way. */
  onTurn?: (turn: {
    job: string;
    trial: number;
    trials: number;
    pass: PassName;
    turn: number;
    of: number;
  }) => void;
  /** Called as each job ends, completed or not, with how many have ended. */
  onJobEnd?: (ended: number) => void;
}

/**
 * Runs each job's trials, `jobs` jobs at once, every job under its name. A job that cannot complete (its
 * cassette lacks an answer, the scorer is unreachable) is reported with its error; the others go on.
 */
export async function runConversationJobs(
  jobs: readonly { name: string; job: ConversationJob }[],
  { jobs: limit = 1, onTurn, onJobEnd, ...options }: ConversationJobsOptions,
): Promise<ConversationJobsOutcome> {
  const slots: (ConversationTrials | undefined)[] = new Array(jobs.length);
  const failures: { job: string; error: unknown }[] = [];
  let ended = 0;
  await pool(
    jobs,
    async ({ name, job }, i) => {
      let trial = 1;
      try {
        slots[i] = await runConversationTrials(job, {
          ...options,
          name,
          onTrial: (t) => {
            trial = t;
          },
          onTurn: (pass, turn, of) =>
            onTurn?.({ job: name, trial, trials: options.trials ?? 1, pass, turn, of }),
        });
      } catch (error) {
        failures.push({ job: name, error });
      }
      onJobEnd?.(++ended);
    },
    { limit },
  );
  return { slots, failures };
}

/** The jobs none of whose passes scored, in any trial: they could not complete, whatever the threshold. */
export function unscoredJobs(done: readonly ConversationTrials[]): ConversationTrials[] {
  return done.filter((r) => r.trials.every((t) => t.unscored !== undefined));
}

/** The jobs with a trial whose simulated user broke its brief (a simulator fault). */
export function simulatorFaultJobs(done: readonly ConversationTrials[]): ConversationTrials[] {
  return done.filter((r) => (r.simulator_faults?.length ?? 0) > 0);
}

/**
 * The exit code of jobs' outcome: 1 when a trial is under `minScore` (a simulator fault is left out of
 * that), or, with `failOnSimulatorFault`, when a trial's simulated user broke its brief; 3 when a job could
 * not be scored, a failed job's own (3, or 2 for bad input); the highest wins, so a job that could not
 * complete outweighs a low score.
 */
export function conversationJobsExitCode(
  { slots, failures }: ConversationJobsOutcome,
  minScore: number | undefined,
  { failOnSimulatorFault = false }: { failOnSimulatorFault?: boolean } = {},
): number {
  const done = slots.filter((r): r is ConversationTrials => r !== undefined);
  return Math.max(
    minScore !== undefined && done.some((r) => r.passed?.includes(false)) ? 1 : 0,
    failOnSimulatorFault && simulatorFaultJobs(done).length > 0 ? 1 : 0,
    unscoredJobs(done).length > 0 ? 3 : 0,
    ...failures.map(({ error }) => (DramaturgError.isInstance(error) ? error.exitCode : 3)),
  );
}
