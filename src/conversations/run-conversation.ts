// The library's live conversation evaluation: `runConversation(job, options)` runs each pass (without
// and with the facts) against the agent, checks the assertions on what it did, and scores the transcripts
// through the Judge on the run engine (fixtures, record/replay, the verdict cache, the store, progress):
// the tone and each task against its acceptance criteria, then the seed's composite per pass.
import type { LanguageModel } from "ai";
import { InputError, passK, type Verdict } from "../core/index.ts";
import {
  type EvaluationOfKind,
  type JudgeOption,
  type JudgeSettings,
  loadStoredResult,
  openDatabase,
  openStore,
  type PlannedCall,
  type ProgressListener,
  prepareJudge,
  runEvaluation,
  type Store,
  scoreFromVerdict,
} from "../engine/index.ts";
import type { Cassette, JudgeItem } from "../judge/index.ts";
import { loadSimulatedUserSet, type SimulatedUserPropositionSet } from "../propositions/index.ts";
import { AgentUnavailableError, createAgentClient, unreachable } from "./agent-client.ts";
import { checkAssertions } from "./assertions.ts";
import { judgeOnCassette, openConversationCassette, userModelOnCassette } from "./cassette.ts";
import { type AssertionOutcome, type Composite, compositeScore } from "./composite.ts";
import { type PassTranscript, runConversationPass } from "./conversation-loop.ts";
import { openGraph } from "./cypher.ts";
import { type ConversationJob, loadConversationJob } from "./job.ts";
import {
  type SimulatedUserBrief,
  type SimulatedUserCheck,
  simulatedUserCheckOf,
  simulatedUserContext,
  simulatedUserItems,
} from "./simulated-user-check.ts";

export const CONVERSATION_RESULT_FORMAT = "dramaturg.conversation-result/v1";

export type PassName = "without_facts" | "with_facts";

export interface PassResult {
  pass: PassName;
  transcript: PassTranscript;
  tone: number | null;
  tasks: { task: string; type: string; score: number | null; reasoning: string }[];
  assertions: AssertionOutcome[];
  composite: Composite;
  /** Why the pass has no composite, when it has none: the agent failed, or the scorer judged no task. */
  unscored?: string;
  /** The check of the simulated user's turns (absent when the check was off). */
  simulated_user?: SimulatedUserCheck;
  /**
   * The simulated user broke its brief: the pass says nothing about the agent, and is kept apart from its
   * failures (left out of the job's score, of the difference and of pass^k). Absent when the check was off.
   */
  simulator_fault?: boolean;
}

export interface ConversationResult {
  format: typeof CONVERSATION_RESULT_FORMAT;
  job: string;
  passes: PassResult[];
  /** with_facts − without_facts, when both ran and scored and neither is a simulator fault. */
  difference: number | null;
  judge: { spec: string; requests: number; calls: number; errored: number };
  /**
   * The check of the simulated user, when it ran: which propositions (their source and hash), the
   * threshold, and how many passes were simulator faults.
   */
  simulated_user?: { propositions: string; hash: string; threshold: number; faults: number };
  /**
   * Set when no pass could be scored, saying why (each pass's `unscored`): the job has no score at all, and
   * the run could not complete (the CLI exits 3). A result where only some passes scored leaves it out.
   */
  unscored?: string;
  evaluation_id?: string;
}

export interface RunConversationOptions {
  /** The simulated user's model (an AI SDK model). Not needed with `replay`. */
  userModel?: LanguageModel;
  /** The scorer: a judge spec, an AI SDK model or a Judge (`fixtures:FILE` replays). */
  judge: JudgeOption;
  judgeSettings?: JudgeSettings;
  /** Overrides the job's target URL. */
  targetUrl?: string;
  passes?: "both" | "without" | "with";
  /** Chooses each pass's greeting. Default 1. */
  seed?: number;
  store?: Store | string;
  /** The job's name in the result and the store (default: its file, or `<job>`). */
  name?: string;
  /** Called after each exchange of a pass (live progress). */
  onTurn?: (pass: PassName, turn: number, of: number) => void;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
  /**
   * A folder to record a cassette into (`<record>/<job>.cassette.json`): the simulated user's answers and,
   * when the scorer runs on a model, the scorer's, keyed by a hash of each call's prompt. No secrets.
   */
  record?: string;
  /**
   * A folder to replay the job's cassette from: no model is called (`userModel` is not needed); a call the
   * cassette has no answer for fails the run with a CassetteMissError naming the file and the key.
   */
  replay?: string;
  /** The trial number in every verdict's key, so repeated runs are separate judgements. Default 1. */
  trial?: number;
  /**
   * Complete this stored conversation evaluation (created beforehand with {@link conversationEvaluationRow},
   * as a queue does when it enqueues the job) instead of creating one: the store keeps one result per
   * conversation however often the job is run.
   */
  evaluationId?: string;
  /**
   * The check of the simulated user's own turns: the built-in propositions about the user (default), a set
   * of one's own (`loadSimulatedUserSet(file)`), or false to skip it. It costs one judge request per pass
   * (up to 10 propositions a request), through the verdict cache like the others.
   */
  simulatedUser?: false | { propositions?: SimulatedUserPropositionSet };
}

type Meta = { pass: number; item: "tone" | number | `user:${string}` };

/** What a pass's simulated user was told: the job's persona and tasks, the facts withheld or given. */
export function simulatedUserBriefOf(job: ConversationJob, transcript: PassTranscript): SimulatedUserBrief {
  return {
    name: job.evaluator.name,
    voice: job.evaluator.voice,
    signoff: job.evaluator.signoff,
    tasks: job.tasks.map((t) => t.task),
    withheldFacts: transcript.with_facts ? [] : job.facts,
    givenFacts: transcript.with_facts ? job.facts : [],
    ended:
      transcript.ended === "signoff"
        ? "the user said its signoff"
        : transcript.ended === "max_turns"
          ? `the turn limit (${job.maxTurns} exchanges) stopped it; the user did not sign off`
          : "the assistant stopped answering",
  };
}

const TONE_CLAIM =
  "The assistant's tone suits the user and the conversation: courteous, clear and natural, neither curt nor padded.";
const taskClaim = (t: ConversationJob["tasks"][number]) =>
  `The assistant got this ${t.type === "question" ? "question answered" : "task done"}: ${t.task}. It counts as done when: ${t.acceptanceCriteria}`;

/** The scorer's requests for the passes: the tone and every task, at most 10 claims a request. */
function scoringCalls(
  job: ConversationJob,
  name: string,
  passes: readonly PassTranscript[],
  trial: number,
  userSet: SimulatedUserPropositionSet | undefined,
) {
  return function* calls(): Generator<PlannedCall<Meta>> {
    for (const [p, pass] of passes.entries()) {
      const items: { item: JudgeItem; meta: Meta }[] = [
        {
          item: {
            key: {
              dimension: "conversation",
              proposition_id: "tone",
              channel: name,
              message_id: pass.with_facts ? "with_facts" : "without_facts",
              trial,
            },
            kind: "score",
            claim: TONE_CLAIM,
          },
          meta: { pass: p, item: "tone" },
        },
        ...job.tasks.map((t, i) => ({
          item: {
            key: {
              dimension: "conversation",
              proposition_id: `task-${i + 1}`,
              channel: name,
              message_id: pass.with_facts ? "with_facts" : "without_facts",
              trial,
            },
            kind: "score" as const,
            claim: taskClaim(t),
          },
          meta: { pass: p, item: i } as Meta,
        })),
      ];
      const text = pass.turns
        .map((t) => `${t.role === "user" ? "User" : "Assistant"}: ${t.content}`)
        .join("\n");
      for (let at = 0; at < items.length; at += 10) {
        const chunk = items.slice(at, at + 10);
        yield {
          items: chunk.map((c) => c.item),
          meta: chunk.map((c) => c.meta),
          doubleCheck: false,
          context: () => ({
            trajectory: { title: "The conversation", text },
            ...(job.facts.length
              ? { additional: `Ground truth:\n${job.facts.map((f) => `- ${f}`).join("\n")}` }
              : {}),
          }),
        };
      }
      if (!userSet) continue;
      // The simulated user's turns, on propositions about the user: a request of their own (another context).
      const brief = simulatedUserBriefOf(job, pass);
      const userItems = simulatedUserItems(userSet, brief, {
        channel: name,
        message_id: pass.with_facts ? "with_facts" : "without_facts",
        trial,
      });
      for (let at = 0; at < userItems.length; at += 10) {
        const chunk = userItems.slice(at, at + 10);
        yield {
          items: chunk,
          meta: chunk.map((item): Meta => ({ pass: p, item: `user:${item.key.proposition_id}` })),
          doubleCheck: false,
          context: () => simulatedUserContext(brief, pass.turns),
        };
      }
    }
  };
}

function conversationKind(
  job: ConversationJob,
  name: string,
  passes: { name: PassName; transcript: PassTranscript; assertions: AssertionOutcome[] }[],
  judgeSpec: string,
  trial: number,
  userSet: SimulatedUserPropositionSet | undefined,
): EvaluationOfKind<Meta, ConversationResult> {
  const verdicts = passes.map(() => new Map<Meta["item"], Verdict>());
  return {
    kind: "conversation",
    plan: {
      calls: scoringCalls(
        job,
        name,
        passes.map((p) => p.transcript),
        trial,
        userSet,
      ),
      trivial: () => [],
    },
    describe: () => {
      const { kind: _, ...row } = conversationEvaluationRow(job, name, judgeSpec);
      return { ...row, input: { job, passes } };
    },
    async begin() {},
    async reopen() {},
    scoreRow: (v, evaluationId) => scoreFromVerdict(v.verdict, { evaluation_id: evaluationId }),
    add(planned) {
      for (const v of planned) verdicts[v.meta.pass]!.set(v.meta.item, v.verdict);
    },
    async finish({ totals }) {
      let errored = 0;
      const value = (v: Verdict | undefined) => {
        if (!v?.ok || v.score === undefined) {
          errored++;
          return null;
        }
        return v.score / 9;
      };
      const results = passes.map((p, i): PassResult => {
        const tone = value(verdicts[i]!.get("tone"));
        const tasks = job.tasks.map((t, k) => {
          const v = verdicts[i]!.get(k);
          return { task: t.task, type: t.type, score: value(v), reasoning: v?.ok ? v.reasoning : "" };
        });
        const composite = compositeScore({
          aspirationalAverage: job.aspirationalAverage,
          latencies: p.transcript.latencies,
          taskScores: tasks.map((t) => t.score),
          assertions: p.assertions,
          failures: p.transcript.failures,
        });
        const unscored = composite.score === null ? unscoredReason(p.transcript, composite) : undefined;
        let check: SimulatedUserCheck | undefined;
        if (userSet) {
          const byId = new Map<string, Verdict>();
          for (const [item, v] of verdicts[i]!)
            if (typeof item === "string" && item.startsWith("user:")) byId.set(item.slice(5), v);
          check = simulatedUserCheckOf(userSet, simulatedUserBriefOf(job, p.transcript), byId);
          errored += check.errored;
        }
        return {
          pass: p.name,
          transcript: p.transcript,
          tone,
          tasks,
          assertions: p.assertions,
          composite,
          ...(unscored !== undefined ? { unscored } : {}),
          ...(check ? { simulated_user: check, simulator_fault: check.fault } : {}),
        };
      });
      const reasons = [...new Set(results.map((r) => r.unscored))];
      // A pass whose simulated user broke its brief measures nothing of the agent: no difference from it.
      const agentScore = (name: PassName) => {
        const pass = results.find((r) => r.pass === name);
        return pass?.simulator_fault ? undefined : pass?.composite.score;
      };
      const without = agentScore("without_facts");
      const withFacts = agentScore("with_facts");
      return {
        result: {
          format: CONVERSATION_RESULT_FORMAT,
          job: name,
          passes: results,
          difference:
            typeof without === "number" && typeof withFacts === "number" ? withFacts - without : null,
          judge: { spec: judgeSpec, requests: totals.requests, calls: totals.calls, errored },
          ...(userSet
            ? {
                simulated_user: {
                  propositions: userSet.source,
                  hash: userSet.hash,
                  threshold: userSet.threshold,
                  faults: results.filter((r) => r.simulator_fault).length,
                },
              }
            : {}),
          ...(results.length > 0 && results.every((r) => r.unscored !== undefined)
            ? { unscored: reasons.join("; ") }
            : {}),
        },
        errored,
      };
    },
    async fail() {},
    async interrupt() {},
  };
}

/**
 * The stored evaluation of one run of a job, without its input: what a run creates, and what a queue creates
 * before a worker runs it (see {@link RunConversationOptions.evaluationId}). The agent a conversation evaluates
 * is its target, named by the job's `target.chatbot`.
 */
export function conversationEvaluationRow(job: ConversationJob, name: string, judgeSpec: string) {
  return {
    kind: "conversation" as const,
    source: name,
    config: { judge: judgeSpec },
    agents: [job.target.chatbot],
  };
}

/** Why a pass's composite is unknown: a part of it could not be measured. */
function unscoredReason(transcript: PassTranscript, composite: Composite): string {
  if (composite.timing === null)
    return transcript.ended === "agent_failed" && transcript.error
      ? transcript.error
      : "the agent gave no timed reply";
  return "the scorer could not judge any task (its verdicts errored)";
}

/** Runs `setup` before a pass: HTTP calls, SQL scripts and Cypher scripts (each statement committed). */
async function runSetup(job: ConversationJob): Promise<void> {
  for (const step of job.setup) {
    if ("sql" in step) {
      const location = step.database ?? job.target.database;
      if (!location) throw new InputError("an sql setup step needs its database (or target.database)");
      const db = await openDatabase(location);
      try {
        await db.exec(step.sql);
      } finally {
        await db.close();
      }
      continue;
    }
    if ("cypher" in step) {
      const location = step.graph ?? job.target.graph;
      if (!location) throw new InputError("a cypher setup step needs its graph (or target.graph)");
      const graph = await openGraph(location, { write: true, timeoutMs: job.target.timeoutMs });
      try {
        await graph.run(step.cypher);
      } finally {
        await graph.close();
      }
      continue;
    }
    const response = await reach(`setup ${step.method}`, step.http, job.target.timeoutMs, {
      method: step.method,
      headers: { "content-type": "application/json" },
      ...(step.body !== undefined ? { body: JSON.stringify(step.body) } : {}),
    });
    if (!response.ok)
      throw new InputError(`setup ${step.method} ${step.http} answered HTTP ${response.status}`);
  }
}

/**
 * `fetch`, with a failure to connect (or to answer in time) reported as the agent being unavailable, naming
 * what was asked and where, instead of the platform's bare "fetch failed".
 */
async function reach(
  what: string,
  url: string,
  timeoutMs: number,
  init: RequestInit = {},
): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new AgentUnavailableError(
      `${what} at ${url}: ${unreachable(error, timeoutMs)}; is the agent running?`,
      {
        attempts: 1,
        cause: error,
      },
    );
  }
}

/**
 * Runs a conversation job against its agent: each pass from freshly set-up state, the assertions checked
 * after it, the transcripts scored through the judge, the composite per pass and the difference. With
 * `record` or `replay`, the models' answers go to or come from the job's cassette.
 */
export async function runConversation(
  job: ConversationJob | string,
  options: RunConversationOptions,
): Promise<ConversationResult> {
  const name = options.name ?? (typeof job === "string" ? job : "<job>");
  const loaded = typeof job === "string" ? loadConversationJob(job) : job;
  const cassette = openConversationCassette(options, name);
  const result = await runOnce(loaded, name, options, cassette);
  cassette?.save();
  return result;
}

/** One run of a loaded job, its models through `cassette` when there is one. */
async function runOnce(
  loaded: ConversationJob,
  name: string,
  options: RunConversationOptions,
  cassette: Cassette | undefined,
): Promise<ConversationResult> {
  const trial = options.trial ?? 1;
  if (!Number.isInteger(trial) || trial < 1)
    throw new InputError(`trial must be a whole number ≥ 1, got ${trial}`);
  const userModel = cassette ? userModelOnCassette(cassette, options.userModel) : options.userModel;
  if (!userModel) throw new InputError("the simulated user needs a model (userModel), except when replaying");
  const judge = cassette ? judgeOnCassette(cassette, options.judge, options.judgeSettings) : options.judge;
  const chosen = options.passes ?? "both";
  const passNames: PassName[] =
    chosen === "both"
      ? ["without_facts", "with_facts"]
      : chosen === "with"
        ? ["with_facts"]
        : ["without_facts"];
  const userSet =
    options.simulatedUser === false
      ? undefined
      : (options.simulatedUser?.propositions ?? loadSimulatedUserSet());
  const built = prepareJudge(judge, options.judgeSettings, { cache: false });
  const passes: { name: PassName; transcript: PassTranscript; assertions: AssertionOutcome[] }[] = [];
  try {
    for (const [i, passName] of passNames.entries()) {
      await runSetup(loaded);
      const agent = createAgentClient(loaded.target, {
        url: options.targetUrl,
        conversationId: `${name}#${passName}`,
      });
      const transcript = await runConversationPass(loaded, {
        agent,
        userModel,
        withFacts: passName === "with_facts",
        seed: (options.seed ?? 1) + i,
        signal: options.signal,
        onTurn: options.onTurn && ((turn, of) => options.onTurn!(passName, turn, of)),
      });
      let objectContext: unknown;
      if (loaded.target.stateUrl) {
        const response = await reach("the agent's state", loaded.target.stateUrl, loaded.target.timeoutMs);
        objectContext = response.ok ? await response.json() : undefined;
      }
      const assertions = await checkAssertions(loaded.assertions, {
        database: loaded.target.database,
        graph: loaded.target.graph,
        objectContext,
        conversation: {
          turns: transcript.turns.map(({ role, content }) => ({ role, content })),
          tool_calls: transcript.tool_calls,
        },
      });
      passes.push({ name: passName, transcript, assertions });
    }
    const owned = typeof options.store !== "object";
    const store =
      typeof options.store === "object" ? options.store : await openStore(options.store ?? "memory://");
    const ready = prepareJudge(built.judge, options.judgeSettings, { store, cache: true, mode: "batch" });
    try {
      const judgeSpec = typeof options.judge === "string" ? options.judge : built.judge.descriptor.model;
      const { evaluationId, result } = await runEvaluation({
        evaluation: conversationKind(loaded, name, passes, judgeSpec, trial, userSet),
        store,
        judge: ready.judge,
        cache: ready.cache,
        onProgress: options.onProgress,
        signal: options.signal,
        resume: options.evaluationId,
      });
      // A scorer's replay miss is only an errored verdict to the judge; a replayed run must fail instead.
      const miss = cassette?.firstMiss;
      if (miss) throw miss;
      return { ...result, evaluation_id: evaluationId };
    } finally {
      await ready.close();
      if (owned) await store.close();
    }
  } finally {
    await built.close();
  }
}

export const CONVERSATION_TRIALS_FORMAT = "dramaturg.conversation-trials/v1";

/**
 * A job's score: the mean of its passes' composites (the reference's command-line score), leaving out the
 * passes whose simulated user broke its brief; null when a pass it counts has no score, or it counts none.
 */
export function conversationScore(result: ConversationResult): number | null {
  const counted = result.passes.filter((p) => !p.simulator_fault);
  const scores = counted.map((p) => p.composite.score).filter((s): s is number => s !== null);
  return scores.length === counted.length && scores.length > 0
    ? scores.reduce((a, b) => a + b, 0) / scores.length
    : null;
}

/** Why a trial is a simulator fault (each faulted pass and what its user broke), or undefined when it is not. */
export function simulatorFaultOf(result: ConversationResult): string | undefined {
  const faulted = result.passes.filter((p) => p.simulator_fault);
  if (faulted.length === 0) return undefined;
  return faulted
    .map((p) => `${p.pass.replace("_", " ")}: ${p.simulated_user?.reason ?? "broke its brief"}`)
    .join("; ");
}

export interface ConversationTrialsOptions extends Omit<RunConversationOptions, "trial"> {
  /** How many times to run the job. Default 1. */
  trials?: number;
  /** A trial passes when its score ({@link conversationScore}) is at least this; gives pass^k. */
  minScore?: number;
  /** Called as each trial starts. */
  onTrial?: (trial: number, of: number) => void;
}

export interface ConversationTrials {
  format: typeof CONVERSATION_TRIALS_FORMAT;
  job: string;
  /** Each trial's result, trial 1 first. */
  trials: ConversationResult[];
  /** Each trial's score ({@link conversationScore}): null when a pass could not be scored. */
  scores: (number | null)[];
  /**
   * With `minScore`: the threshold, which trials reached it (null: a simulator fault, left out), and pass^k
   * for k = 1…the trials counted, over the trials that are not simulator faults.
   */
  min_score?: number;
  passed?: (boolean | null)[];
  pass_k?: Record<string, number>;
  /** The trials whose simulated user broke its brief (1-based), and why: kept apart from the agent's failures. */
  simulator_faults?: { trial: number; reason: string }[];
}

/**
 * Runs a job `trials` times, each a full {@link runConversation}: trial k greets with seed + k − 1 and
 * has trial k in its verdict keys (so the cache never hands one trial's verdicts to another). With
 * `minScore`, reports pass^k (τ-bench's estimator: the chance that k trials drawn from the N all pass).
 * One cassette serves every trial: recorded once, replayed in the same order.
 */
export async function runConversationTrials(
  job: ConversationJob | string,
  { trials = 1, minScore, onTrial, ...options }: ConversationTrialsOptions,
): Promise<ConversationTrials> {
  if (!Number.isInteger(trials) || trials < 1)
    throw new InputError(`trials must be a whole number ≥ 1, got ${trials}`);
  const name = options.name ?? (typeof job === "string" ? job : "<job>");
  const loaded = typeof job === "string" ? loadConversationJob(job) : job;
  const cassette = openConversationCassette(options, name);
  const results: ConversationResult[] = [];
  for (let trial = 1; trial <= trials; trial++) {
    onTrial?.(trial, trials);
    results.push(
      await runOnce(loaded, name, { ...options, seed: (options.seed ?? 1) + trial - 1, trial }, cassette),
    );
  }
  cassette?.save();
  return conversationTrialsOf(name, results, minScore);
}

/**
 * A job's trials (their results, trial 1 first) with their scores and, with `minScore`, pass^k: what
 * {@link runConversationTrials} returns, also for trials run elsewhere (queued, one job each).
 */
export function conversationTrialsOf(
  name: string,
  results: ConversationResult[],
  minScore?: number,
): ConversationTrials {
  const scores = results.map(conversationScore);
  const faults = results.flatMap((r, i) => {
    const reason = simulatorFaultOf(r);
    return reason === undefined ? [] : [{ trial: i + 1, reason }];
  });
  const base = {
    format: CONVERSATION_TRIALS_FORMAT,
    job: name,
    trials: results,
    scores,
  } as const;
  const apart = faults.length > 0 ? { simulator_faults: faults } : {};
  if (minScore === undefined) return { ...base, ...apart };
  // A trial whose simulated user broke its brief is neither a pass nor a failure of the agent's: left out.
  const passed = scores.map((s, i) =>
    faults.some((f) => f.trial === i + 1) ? null : s !== null && s >= minScore,
  );
  const counted = passed.filter((p): p is boolean => p !== null);
  return {
    ...base,
    min_score: minScore,
    passed,
    pass_k: counted.length > 0 ? passK(counted.map((success) => ({ task_id: name, success }))).pass_k : {},
    ...apart,
  };
}

/** A stored conversation result (the latest, or by id or its first 8+ characters). */
export function loadConversationResult({
  store,
  id,
}: {
  store: Store;
  id?: string;
}): Promise<ConversationResult> {
  return loadStoredResult<ConversationResult>(store, id, {
    kind: "conversation",
    format: CONVERSATION_RESULT_FORMAT,
    noun: "conversation",
  });
}

/** One line per stored conversation run, newest first: `dramaturg conversations`. */
export async function listConversationResults({
  store,
  limit = 50,
  ...page
}: { store: Store; limit?: number } & Pick<
  NonNullable<Parameters<Store["evaluations"]["list"]>[0]>,
  "after" | "since" | "until" | "agent"
>) {
  const rows = await store.evaluations.list({ kind: "conversation", limit, ...page });
  const out: {
    id: string;
    created_at: string;
    status: string;
    job: string;
    /** The agent under test (the job's target.chatbot). */
    agent: string | null;
    passes: { pass: PassName; score: number | null }[];
  }[] = [];
  for (const row of rows) {
    const result =
      row.status === "completed"
        ? ((await store.evaluations.result(row.id)) as ConversationResult | undefined)
        : undefined;
    out.push({
      id: row.id,
      created_at: row.created_at,
      status: row.status,
      job: result?.job ?? row.source,
      agent: row.agents[0] ?? null,
      passes:
        result?.format === CONVERSATION_RESULT_FORMAT
          ? result.passes.map((p) => ({ pass: p.pass, score: p.composite.score }))
          : [],
    });
  }
  return out;
}
