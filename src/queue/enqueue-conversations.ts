// Queuing conversations: one pending conversation evaluation per job file and trial (the row an in-process run
// stores), one job each (conversation-jobs.ts), and following them until every one has ended.
import { setTimeout as sleep } from "node:timers/promises";
import type { PgBoss } from "pg-boss";
import {
  type ConversationJob,
  type ConversationResult,
  conversationEvaluationRow,
} from "../conversations/index.ts";
import { parseJudgeSpec } from "../core/index.ts";
import type { Store } from "../engine/index.ts";
import { createJudgeModel } from "../judge/index.ts";
import type { SimulatedUserPropositionSet } from "../propositions/index.ts";
import { openQueue, withQueue } from "./boss.ts";
import { CONVERSATION_JOBS, type ConversationJobData, simulatedUserOfOption } from "./conversation-jobs.ts";
import { modelSpec } from "./model-spec.ts";

export interface EnqueueConversationsOptions {
  store: Store;
  /** The store's PostgreSQL connection string (its location), where the queue is. */
  connectionString: string;
  /** The simulated user's model: a spec (`openai-compatible:MODEL`…), with its base URL and key variable. */
  userModel: string;
  userBaseUrl?: string;
  userApiKeyEnv?: string;
  /** The scorer: a judge spec (`fixtures:FILE` is read by the worker, from its own folder). */
  judge: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  /** Overrides each job's target URL. */
  targetUrl?: string;
  passes?: "both" | "without" | "with";
  /** Trial k greets with seed + k − 1, as runConversationTrials does. Default 1. */
  seed?: number;
  /** Runs of each job. Default 1. */
  trials?: number;
  /**
   * The check of the simulated user's turns, as runConversation takes it: the built-in set (default), a set
   * of one's own (carried in each job whole: workers cannot read this machine's file), or false to skip it.
   */
  simulatedUser?: false | { propositions?: SimulatedUserPropositionSet };
}

/** A queued job file: its evaluations, one per trial, trial 1 first. */
export interface QueuedConversation {
  name: string;
  evaluationIds: string[];
}

/**
 * Stores one pending conversation evaluation per job and trial and queues a job for each. The specs are
 * checked first: a bad one throws an InputError before anything is written.
 */
export async function enqueueConversations(
  jobs: readonly { name: string; job: ConversationJob }[],
  {
    store,
    connectionString,
    userModel,
    userBaseUrl,
    userApiKeyEnv,
    judge,
    judgeBaseUrl,
    judgeApiKeyEnv,
    targetUrl,
    passes = "both",
    seed = 1,
    trials = 1,
    simulatedUser,
  }: EnqueueConversationsOptions,
): Promise<QueuedConversation[]> {
  parseJudgeSpec(judge);
  // The user's model is made by the worker, with the worker's key: here only its spec and URL are checked.
  createJudgeModel(userModel, { baseUrl: userBaseUrl, apiKeyEnv: "KEY", env: { KEY: "not-a-key" } });
  const checked = simulatedUserOfOption(simulatedUser);
  return withQueue(store, connectionString, async (boss) => {
    const queued: QueuedConversation[] = [];
    const data: ConversationJobData[] = [];
    for (const { name, job } of jobs) {
      const evaluationIds: string[] = [];
      for (let trial = 1; trial <= trials; trial++) {
        const row = await store.evaluations.create({
          ...conversationEvaluationRow(job, name, judge),
          input: { job },
        });
        evaluationIds.push(row.id);
        data.push({
          evaluation_id: row.id,
          name,
          trial,
          seed: seed + trial - 1,
          passes,
          ...(targetUrl !== undefined ? { target_url: targetUrl } : {}),
          user: modelSpec(userModel, { baseUrl: userBaseUrl, apiKeyEnv: userApiKeyEnv }),
          judge: modelSpec(judge, { baseUrl: judgeBaseUrl, apiKeyEnv: judgeApiKeyEnv }),
          simulated_user: checked,
        });
      }
      queued.push({ name, evaluationIds });
    }
    // A job's trials share its target's state, as they do run one after another in process: one group each,
    // which the workers run one job at a time (the kind's groupConcurrency).
    await boss.insert(
      CONVERSATION_JOBS,
      data.map((d) => ({ data: d, group: { id: d.name } })),
    );
    return queued;
  });
}

/** How a queued conversation ended: its result (with its evaluation's id), or why it failed. */
export type FollowedConversation =
  | { status: "completed"; result: ConversationResult }
  | { status: "failed"; error: string };

/**
 * Waits until every one of the evaluations has ended and returns how each did, by id. A failed evaluation
 * whose job the queue will try again is still under way.
 */
export async function followConversations(
  store: Store,
  connectionString: string,
  evaluationIds: readonly string[],
  { intervalMs = 250, onProgress }: { intervalMs?: number; onProgress?: (ended: number) => void } = {},
): Promise<Map<string, FollowedConversation>> {
  const ended = new Map<string, FollowedConversation>();
  let boss: PgBoss | undefined;
  try {
    for (;;) {
      for (const id of evaluationIds) {
        if (ended.has(id)) continue;
        const row = await store.evaluations.get(id);
        if (!row) ended.set(id, { status: "failed", error: `evaluation ${id} does not exist` });
        else if (row.status === "completed") {
          const result = (await store.evaluations.result(id)) as ConversationResult;
          ended.set(id, { status: "completed", result: { ...result, evaluation_id: id } });
        } else if (row.status === "failed" || row.status === "interrupted") {
          boss ??= await openQueue(store, connectionString);
          const again = await boss.findJobs(CONVERSATION_JOBS, { data: { evaluation_id: id } });
          if (
            !again.some((job) => job.state === "created" || job.state === "retry" || job.state === "active")
          )
            ended.set(id, { status: "failed", error: row.error ?? `evaluation ${id} ${row.status}` });
        }
      }
      onProgress?.(ended.size);
      if (ended.size === evaluationIds.length) return ended;
      await sleep(intervalMs);
    }
  } finally {
    await boss?.stop({ graceful: false, close: true });
  }
}
