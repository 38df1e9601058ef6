// One arm's run of one environment of an experiment: the world (interventions, facilitator prompts, agents
// acting, the action gate when the arm turns it on), then the rapporteur's write-up, the extractor's count of
// ideas or opinions, and the judged metrics (persona dimensions on every agent, convergence and task
// completion on the session). Its record is what the experiment's document is assembled from.
import type { LanguageModel } from "ai";
import {
  addUsage,
  agentTrajectory,
  type CorrectionSettings,
  channelTrajectory,
  contentHash,
  type Message,
  type PersonaDimension,
  renderTrajectory,
  type TokenUsage,
  type Transcript,
  type Verdict,
  ZERO_USAGE,
} from "../core/index.ts";
import { worldCorrections } from "../corrections/index.ts";
import type { Store } from "../engine/index.ts";
import type { Judge, JudgeRequest } from "../judge/index.ts";
import { type EvalResult, evaluatePersonas, preparePersonaEvaluation } from "../personas/index.ts";
import { createWorld, WORLD_FORMAT, WORLD_START, type WorldAgent, type WorldFile } from "../sim/index.ts";
import type { Scenario, ScenarioArm, ScenarioArmName, ScenarioEnvironment } from "./scenario.ts";
import { surveyAnswer } from "./survey.ts";

/** Who posts the scenario's prompts in a world (never an agent id: the experiment refuses a person with it). */
export const FACILITATOR = "facilitator";

/** The proposition ids the extraction and task completion are judged (and keyed in fixtures) under. */
export const EXTRACTION_PROPOSITION = "extraction";
export const TASK_COMPLETION_PROPOSITION = "task-completion";

const WHOLE = { first_n: Number.POSITIVE_INFINITY, last_n: 0 };

/** What one arm's run of one environment measured and spent. */
export interface EnvironmentRecord {
  /** Per-agent metric → agent id → value (null when every verdict of it errored or the agent never spoke). */
  agents: Record<string, Record<string, number | null>>;
  /** Per-environment metric → value (null when its verdict errored). */
  environment: Record<string, number | null>;
  /** What the extractor listed from the rapporteur's trajectory. */
  extracted: string[];
  /**
   * The survey's answers (scenarios with one): question id → agent id → the answer read from the agent's reply,
   * null when it gave none.
   */
  survey?: Record<string, Record<string, string | null>>;
  /** Agents' messages committed, and drafts dropped (by the gate, or to a channel the agent is not in). */
  messages: number;
  dropped: number;
  /** Interventions that fired, as `step:name:agent`. */
  interventions: string[];
  /**
   * Messages the action gate judged, and what became of them; `unjudged`: checks that passed because the
   * judge timed out or failed (the gate fails open, by design, and says so here).
   */
  gate: { checks: number; corrected: number; rejected: number; unjudged?: number };
  /**
   * Model calls and tokens as sent to a provider (what it bills): `agent`, the agents' model (every draft
   * and redraft); `judge`, the judge's (interventions, the gate, extraction, task completion and the
   * persona dimensions); `judge_cached`, judge calls the verdict cache answered instead (not sent). Like a
   * persona result's totals, they say what this invocation spent: a rerun or resume may spend less.
   */
  calls: { agent: number; judge: number; judge_cached?: number };
  tokens: { agent: TokenUsage; judge: TokenUsage };
  /** Verdicts that errored (excluded from the metrics). */
  errored: number;
}

export interface EnvironmentRunOptions {
  scenario: Scenario;
  arm: ScenarioArmName;
  environment: ScenarioEnvironment;
  /** The environment's world agents (its members, in group order). */
  members: readonly WorldAgent[];
  /** The world's seed: the same in both arms of a pair. */
  seed: number;
  model: (agent: WorldAgent) => LanguageModel;
  judge: Judge;
  store: Store;
  /** The environment's stored row: the gate's logs and the persona evaluation are filed under it. */
  runId: string;
  /** Judge calls in flight of the persona evaluation. */
  concurrency: number;
  gateTimeoutMs?: number;
  temperature?: number;
  signal?: AbortSignal;
  onPhase?: (phase: "simulated" | "judged") => void;
}

/**
 * The world of an environment in an arm: the same agents, prompts and seed in both arms, but for the arm's
 * settings, which every agent takes as they are. Built as the world's typed model, not parsed: the scenario
 * and the population were checked where they were read (an agent id of "facilitator" or a duplicate is
 * refused there), and `corrections` are whole settings, resolved once for the arm (`armCorrections`).
 */
export function environmentWorld(
  scenario: Scenario,
  arm: ScenarioArm,
  corrections: CorrectionSettings,
  environment: ScenarioEnvironment,
  members: readonly WorldAgent[],
  seed: number,
): WorldFile {
  const channel = scenario.channel;
  return {
    format: WORLD_FORMAT,
    agents: members.map((m) => {
      const nudges = arm.nudges ?? m.nudges;
      return {
        id: m.id,
        name: m.name,
        persona: m.persona,
        corrections,
        ...(nudges ? { nudges } : {}),
      };
    }),
    channels: [{ id: channel }],
    facilitator: [
      { step: 1, channel, text: environment.prompts.intro, from: FACILITATOR },
      { step: 2, channel, text: environment.prompts.task, from: FACILITATOR },
    ],
    steps: environment.world_steps,
    order: scenario.order,
    seed,
    start: WORLD_START,
  };
}

/** Runs one arm of one environment to its record. Throws what the world, the judge or the store throws. */
export async function runEnvironment(
  options: EnvironmentRunOptions,
  corrections: CorrectionSettings,
): Promise<EnvironmentRecord> {
  const { scenario, environment, judge, store, signal } = options;
  const arm = scenario.arms[options.arm];
  const file = environmentWorld(scenario, arm, corrections, environment, options.members, options.seed);
  // The same settings for the world's agents (their interventions) and for the gate and repetition suppression.
  const gate = worldCorrections({
    judge,
    configFor: () => corrections,
    log: store,
    runId: options.runId,
    timeoutMs: options.gateTimeoutMs,
  });
  const world = createWorld(file, {
    model: options.model,
    judge,
    beforeCommit: gate.beforeCommit,
    beforeAct: gate.beforeAct,
    afterStep: () => gate.flush(),
    temperature: options.temperature,
  });
  let spent = { agentCalls: 0, agentUsage: ZERO_USAGE, judgeCalls: 0, judgeUsage: ZERO_USAGE };
  let stats: Awaited<ReturnType<typeof world.run>>["stats"];
  let report: Message[];
  let survey: EnvironmentRecord["survey"];
  try {
    ({ stats } = await world.run({ signal }));
    const spend = (calls: number, usage: TokenUsage) => {
      spent.agentCalls += calls;
      spent.agentUsage = addUsage(spent.agentUsage, usage);
    };
    report = await consolidate(world, scenario, environment, signal, spend);
    if (scenario.survey) {
      const asked = await askSurvey(world, scenario, environment, report, signal, spend);
      survey = asked.answers;
      report = [...report, ...asked.messages];
    }
  } finally {
    await gate.flush();
  }
  const transcript: Transcript = { ...world.transcript() };
  transcript.messages = [...transcript.messages, ...report];
  const gateChecks = gate.checks;
  const gateUsage = gateChecks.reduce<TokenUsage>(
    (sum, c) => (c.token_usage ? addUsage(sum, c.token_usage) : sum),
    ZERO_USAGE,
  );
  spent = {
    agentCalls: spent.agentCalls + stats.agentCalls,
    agentUsage: addUsage(spent.agentUsage, stats.agentUsage),
    judgeCalls: stats.judgeCalls + gateChecks.reduce((n, c) => n + (c.judge_calls ?? 0), 0),
    judgeUsage: addUsage(stats.judgeUsage, gateUsage),
  };
  options.onPhase?.("simulated");

  const rapporteur = file.agents[environment.rapporteur - environment.members[0]!]!;
  const [extraction, completion, personas] = await Promise.all([
    judgeOne(judge, extractionRequest(scenario, environment, transcript, rapporteur), signal),
    environment.prompts.task_completion === undefined
      ? undefined
      : judgeOne(
          judge,
          taskCompletionRequest(scenario, environment.prompts.task_completion, transcript),
          signal,
        ),
    judgePersonas(options, transcript),
  ]);
  options.onPhase?.("judged");

  const memberIds = file.agents.map((a) => a.id).sort();
  const agents: EnvironmentRecord["agents"] = {};
  for (const dimension of ["adherence", "consistency", "fluency"] as const) {
    if (!scenario.metrics.dimensions.includes(dimension)) continue;
    agents[dimension] = Object.fromEntries(
      memberIds.map((id) => [
        id,
        personas.runs.find((r) => r.agent_id === id)?.dimensions[dimension]?.score ?? null,
      ]),
    );
  }
  const environmentMetrics: EnvironmentRecord["environment"] = {};
  if (scenario.metrics.dimensions.includes("convergence"))
    environmentMetrics.convergence =
      personas.environments.find((e) => e.channel === scenario.channel)?.dimensions.convergence?.score ??
      null;
  environmentMetrics[`${scenario.extraction.kind}_quantity`] = extraction.verdict.ok
    ? (extraction.verdict.count ?? null)
    : null;
  if (completion)
    environmentMetrics.task_completion = completion.verdict.ok ? (completion.verdict.score ?? null) : null;

  const judged = [extraction, ...(completion ? [completion] : [])];
  const engine = personas.totals;
  return {
    agents,
    environment: environmentMetrics,
    extracted: extraction.verdict.ok ? [...(extraction.verdict.ideas ?? [])] : [],
    ...(survey ? { survey } : {}),
    // The facilitator's prompts (the write-up's, the survey's) are not an agent's.
    messages: stats.messages + report.filter((m) => m.sender !== FACILITATOR).length,
    dropped: stats.dropped,
    interventions: stats.fired.flatMap((f) => f.agent_ids.map((a) => `${f.step}:${f.name}:${a}`)),
    gate: {
      checks: gateChecks.length,
      corrected: gateChecks.filter((c) => c.outcome === "corrected" || c.outcome === "passed_after_retry")
        .length,
      rejected: gate.summary().rejected,
      unjudged: gateChecks.filter((c) => c.outcome === "timeout_pass_through").length,
    },
    calls: {
      agent: spent.agentCalls,
      judge: spent.judgeCalls + judged.reduce((n, j) => n + j.calls, 0) + engine.calls,
      judge_cached: engine.cache?.saved_calls ?? 0,
    },
    tokens: {
      agent: spent.agentUsage,
      judge: [...judged.map((j) => j.usage), engine.token_usage].reduce(addUsage, spent.judgeUsage),
    },
    errored: personas.totals.errored + judged.filter((j) => !j.verdict.ok).length,
  };
}

/**
 * The rapporteur's write-up: the agent perceives what it has not yet (the last step's messages) and the
 * rapporteur prompt, and acts once, through the gate like any act of its arm. Times follow the last message.
 */
async function consolidate(
  world: ReturnType<typeof createWorld>,
  scenario: Scenario,
  environment: ScenarioEnvironment,
  signal: AbortSignal | undefined,
  spend: (calls: number, usage: TokenUsage) => void,
): Promise<Message[]> {
  const step = environment.world_steps + 1;
  const prompt = facilitatorPrompt(world, scenario, step, environment.prompts.rapporteur, []);
  const index = environment.rapporteur - environment.members[0]!;
  const sent = await answer(world, index, step, prompt, 0, signal, spend);
  return [prompt, ...sent];
}

/**
 * The survey, question by question after the write-up: the facilitator asks in the channel, and every agent
 * answers once, on its own (all act on what they had seen, none sees another's answer to the question being
 * asked), through its arm's gate. Each answer is read from the agent's messages by the survey's fixed rule
 * (`surveyAnswer`); an agent that sent nothing, or nothing the rule reads, has no answer (null).
 */
async function askSurvey(
  world: ReturnType<typeof createWorld>,
  scenario: Scenario,
  environment: ScenarioEnvironment,
  report: readonly Message[],
  signal: AbortSignal | undefined,
  spend: (calls: number, usage: TokenUsage) => void,
): Promise<{ messages: Message[]; answers: NonNullable<EnvironmentRecord["survey"]> }> {
  const messages: Message[] = [];
  const answers: NonNullable<EnvironmentRecord["survey"]> = {};
  for (const [q, question] of (scenario.survey ?? []).entries()) {
    const step = environment.world_steps + 2 + q;
    const prompt = facilitatorPrompt(world, scenario, step, question.prompt, [...report, ...messages]);
    const replies = await Promise.all(
      world.agents.map((_, i) => answer(world, i, step, prompt, i, signal, spend)),
    );
    messages.push(prompt, ...replies.flat());
    // In the world's order: the document reads them by sorted agent id (assemble).
    answers[question.id] = Object.fromEntries(
      world.agents.map((a, i) => [
        a.agent.id,
        surveyAnswer(question, replies[i]!.map((m) => m.text).join("\n")),
      ]),
    );
  }
  return { messages, answers };
}

/**
 * A facilitator's prompt in the scenario's channel at `step`, a second after the last message: of `after`
 * (what was said after the world's steps), else of the world.
 */
function facilitatorPrompt(
  world: ReturnType<typeof createWorld>,
  scenario: Scenario,
  step: number,
  text: string,
  after: readonly Message[],
): Message {
  const last =
    after.reduce<Message | undefined>(
      (latest, m) => (!latest || Date.parse(m.at) > Date.parse(latest.at) ? m : latest),
      undefined,
    ) ?? world.messages.at(-1);
  const base = (last ? Date.parse(last.at) : Date.parse(world.file.start)) + 1000;
  return {
    id: `s${step}-${FACILITATOR}-1`,
    sender: FACILITATOR,
    channel: scenario.channel,
    text,
    at: new Date(base).toISOString(),
  };
}

/**
 * Agent `index` perceives what it has not yet and `prompt`, and acts once; what it sends is stamped after the
 * prompt (`slot` keeps agents answering the same prompt apart in time) and joins the world's messages.
 */
async function answer(
  world: ReturnType<typeof createWorld>,
  index: number,
  step: number,
  prompt: Message,
  slot: number,
  signal: AbortSignal | undefined,
  spend: (calls: number, usage: TokenUsage) => void,
): Promise<Message[]> {
  signal?.throwIfAborted();
  const member = world.agents[index]!;
  const seen = new Set(member.memory.map((e) => e.message.id));
  const unseen = world.messages.filter(
    (m) => m.sender !== member.agent.id && member.channels.includes(m.channel) && !seen.has(m.id),
  );
  const base = Date.parse(prompt.at) + 1000 + slot * 10;
  const result = await member.act({
    step,
    stimuli: [...unseen, prompt],
    stamp: (draft, i) => ({
      id: `s${step}-${member.agent.id}-${i + 1}`,
      sender: member.agent.id,
      channel: draft.channel,
      text: draft.text,
      at: new Date(base + i).toISOString(),
    }),
    signal,
  });
  spend(result.calls, result.usage);
  return result.sent;
}

interface SingleJudgement {
  verdict: Verdict;
  calls: number;
  usage: TokenUsage;
}

async function judgeOne(judge: Judge, request: JudgeRequest, signal?: AbortSignal): Promise<SingleJudgement> {
  const response = await judge.judge(request, { signal });
  return { verdict: response.verdicts[0]!, calls: response.calls, usage: response.usage };
}

/** The extractor's request: the distinct ideas (or opinions) in the rapporteur's whole trajectory, listed and counted. */
export function extractionRequest(
  scenario: Scenario,
  environment: ScenarioEnvironment,
  transcript: Transcript,
  rapporteur: Pick<WorldAgent, "id" | "name">,
): JudgeRequest {
  const kind = scenario.extraction.kind;
  return {
    items: [
      {
        key: {
          dimension: `${kind}_quantity`,
          proposition_id: EXTRACTION_PROPOSITION,
          channel: scenario.channel,
          trial: 1,
        },
        kind: "count",
        claim: `${environment.prompts.extraction_objective} Count each distinct ${kind === "ideas" ? "idea" : "opinion"} once; for each, note its ${scenario.extraction.fields.join(", ")}.`,
      },
    ],
    context: {
      trajectory: {
        title: `${rapporteur.name}'s trajectory, ending with the write-up of the session`,
        text: renderTrajectory(agentTrajectory(transcript, rapporteur.id), WHOLE, { name: rapporteur.name }),
      },
      additional: `The situation: ${environment.prompts.extraction_situation}`,
    },
    doubleCheck: false,
  };
}

/** Task completion's request: did the session do what it was for? One 0–9 score on the channel's whole conversation. */
export function taskCompletionRequest(
  scenario: Scenario,
  task: string,
  transcript: Transcript,
): JudgeRequest {
  const channel = scenario.channel;
  return {
    items: [
      {
        key: { dimension: "task_completion", proposition_id: TASK_COMPLETION_PROPOSITION, channel, trial: 1 },
        kind: "score",
        claim: `The participants did, completely and well, what the session was for. What it was for: ${task}`,
      },
    ],
    context: {
      trajectory: {
        title: `the whole conversation in #${channel}`,
        text: renderTrajectory(channelTrajectory(transcript, channel), WHOLE, { channel }),
      },
    },
    doubleCheck: scenario.judge.double_check,
  };
}

/**
 * The persona dimensions on every member, through the persona kind on the engine (stored under the
 * environment, cached, resumable), with the scenario's judge settings laid over the built-in propositions:
 * double_check on every set, hard adherence as the scenario says.
 */
async function judgePersonas(options: EnvironmentRunOptions, transcript: Transcript): Promise<EvalResult> {
  const { scenario } = options;
  const dimensions: PersonaDimension[] = [...scenario.metrics.dimensions];
  const agents = options.members.map((m) => m.id);
  const source = `experiment-environment:${options.runId}`;
  const prepared = await preparePersonaEvaluation({ transcript, dimensions, agents, source });
  const propositions = prepared.propositions;
  const adjust = <S extends { dimension: string; hash: string; hard: boolean; double_check: boolean }>(
    set: S,
  ): S => {
    const hard = set.dimension === "adherence" ? scenario.metrics.hard_adherence : set.hard;
    const double_check = scenario.judge.double_check;
    if (hard === set.hard && double_check === set.double_check) return set;
    return { ...set, hard, double_check, hash: contentHash({ base: set.hash, hard, double_check }) };
  };
  const agentSets = new Map(
    [...propositions.sets.agent].map(([id, sets]) => [
      id,
      new Map([...sets].map(([d, s]) => [d, adjust(s)])),
    ]),
  );
  const environmentSets = new Map([...propositions.sets.environment].map(([d, s]) => [d, adjust(s)]));
  const hashes = (sets: ReadonlyMap<string, { hash: string }>) =>
    Object.fromEntries([...sets].map(([d, s]) => [d, s.hash]));
  return evaluatePersonas({
    transcript,
    dimensions,
    agents,
    source,
    mode: scenario.judge.mode,
    propositions: {
      sets: { agent: agentSets, environment: environmentSets },
      warnings: propositions.warnings,
      hash: contentHash({
        agent: Object.fromEntries([...agentSets].map(([id, sets]) => [id, hashes(sets)])),
        environment: hashes(environmentSets),
      }),
    },
    judge: options.judge,
    store: options.store,
    concurrency: options.concurrency,
    signal: options.signal,
  });
}
