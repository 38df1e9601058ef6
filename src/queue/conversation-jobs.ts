// Queued conversations, the kind of job: `converse --queue` stores one conversation evaluation per job file and
// trial (enqueue-conversations.ts) and queues one job for each; a worker runs that conversation against the job's
// target through the library and completes that evaluation, so the store keeps one result per conversation
// however often the job runs (a completed one is not run again). Models travel as specs, never keys: a worker
// reads the keys from its own environment. The simulated user's check travels whole (on or off, and a set of
// one's own as its propositions, not its path): the worker checks what an in-process run would.
import { z } from "zod";
import { type ConversationJob, runConversation, SIMULATED_USER_PROBE } from "../conversations/index.ts";
import { createJudgeModel } from "../judge/index.ts";
import {
  SimulatedUserPropositionFileSchema,
  type SimulatedUserPropositionSet,
  simulatedUserSetOf,
} from "../propositions/index.ts";
import type { QueuedJobKind, WorkerContext } from "./job-kind.ts";
import { ModelSpecSchema } from "./model-spec.ts";
import { failQueuedEvaluation } from "./queued-evaluation.ts";
import { CONVERSATION_JOBS, CONVERSATION_RETRY_LIMIT } from "./queues.ts";

export { CONVERSATION_JOBS, CONVERSATION_RETRY_LIMIT };

const optionalText = z.string().min(1).optional();

export const ConversationJobDataSchema = z.object({
  /** The stored conversation evaluation this job completes. */
  evaluation_id: z.string().uuid(),
  /** The job's name in the result (its file, as given). */
  name: z.string().min(1),
  trial: z.number().int().min(1),
  seed: z.number().int(),
  passes: z.enum(["both", "without", "with"]),
  target_url: optionalText,
  user: ModelSpecSchema,
  judge: ModelSpecSchema,
  /**
   * The check of the simulated user's turns: whether it runs, and the propositions of a file given to the
   * enqueuer (`source` is that path as given, for the result; the worker never reads it). Without
   * `propositions`, the built-in set. Absent in a job queued before the check travelled: the built-in set.
   */
  simulated_user: z
    .object({
      check: z.boolean(),
      propositions: SimulatedUserPropositionFileSchema.extend({ source: z.string().min(1) }).optional(),
    })
    .refine((s) => s.check || s.propositions === undefined, "propositions are for a check that runs")
    .optional(),
});
export type ConversationJobData = z.infer<typeof ConversationJobDataSchema>;

/** The job data's form of a run's `simulatedUser` option (see {@link simulatedUserOfJob} for the way back). */
export function simulatedUserOfOption(
  option: false | { propositions?: SimulatedUserPropositionSet } | undefined,
): NonNullable<ConversationJobData["simulated_user"]> {
  if (option === false) return { check: false };
  const set = option?.propositions;
  if (!set) return { check: true };
  const { dimension, threshold, propositions, source } = set;
  return { check: true, propositions: { dimension, threshold, propositions, source } };
}

/** The run's `simulatedUser` option a job's data stands for: a carried set is checked as a loaded file is. */
export function simulatedUserOfJob(
  data: ConversationJobData["simulated_user"],
): false | { propositions?: SimulatedUserPropositionSet } {
  if (data === undefined) return {};
  if (!data.check) return false;
  if (!data.propositions) return {};
  const { source, ...file } = data.propositions;
  return { propositions: simulatedUserSetOf(file, source) };
}

/** What a queued conversation evaluation keeps as its input: the job, checked when it was enqueued. */
const StoredInputSchema = z.object({
  job: z.looseObject({ target: z.looseObject({ chatbot: z.string() }), tasks: z.array(z.unknown()) }),
});

export const conversationJobs: QueuedJobKind<ConversationJobData> = {
  name: "conversation",
  queue: CONVERSATION_JOBS,
  data: ConversationJobDataSchema,
  retryLimit: CONVERSATION_RETRY_LIMIT,
  // A job file's trials share its target's state: one after another, as in process, in a worker and (their
  // jobs grouped by file in enqueue-conversations.ts) across workers.
  jobsAtOnce: 1,
  groupConcurrency: 1,
  run: runConversationJob,
  failed: (job, error, { store }) =>
    failQueuedEvaluation(
      store,
      job.evaluation_id,
      `a queued conversation failed ${CONVERSATION_RETRY_LIMIT + 1} times`,
      error,
    ),
};

/** Runs one queued conversation into its stored evaluation, unless that is completed already. */
async function runConversationJob(data: ConversationJobData, context: WorkerContext): Promise<void> {
  const { store } = context;
  const row = await store.evaluations.get(data.evaluation_id);
  if (!row || row.status === "completed") return;
  const { job } = StoredInputSchema.parse(await store.evaluations.input(row.id));
  const simulatedUser = simulatedUserOfJob(data.simulated_user);
  // Running from the first exchange on (the engine starts it again when it scores).
  await store.evaluations.start(row.id);
  const { apiKeyEnv, timeoutMs, retries } = context.judgeSettings ?? {};
  try {
    await runConversation(job as unknown as ConversationJob, {
      userModel: createJudgeModel(data.user.spec, {
        baseUrl: data.user.base_url,
        apiKeyEnv: data.user.api_key_env,
        probe: SIMULATED_USER_PROBE,
      }).model,
      judge: data.judge.spec,
      judgeSettings: {
        baseUrl: data.judge.base_url,
        // The worker's own key variable first: its environment is the one the key is in.
        apiKeyEnv: apiKeyEnv ?? data.judge.api_key_env,
        timeoutMs,
        retries,
      },
      targetUrl: data.target_url,
      passes: data.passes,
      seed: data.seed,
      trial: data.trial,
      name: data.name,
      simulatedUser,
      store,
      evaluationId: row.id,
    });
  } catch (error) {
    // The engine marks a failed scoring failed; the queue tries again, so it is running until the last attempt.
    const now = await store.evaluations.get(row.id);
    if (now?.status === "failed") await store.evaluations.start(row.id).catch(() => {});
    throw error;
  }
}
