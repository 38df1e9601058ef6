// The experiment runner: a scenario's population (loaded, given, or generated once and kept), split into the
// groups planEnvironments says, and for each environment a pair — control and treatment with the same agents,
// seed and prompts, only the arm's corrections differing — each run as its own stored row (kind
// `experiment_environment`) under the experiment (kind `experiment`). A run of the same experiment on the same
// store (after Ctrl-C, or a killed process) takes every finished environment from the store and runs only the
// others; the document is assembled in plan order, so it is the same bytes whatever the concurrency or resumes.
import { setMaxListeners } from "node:events";
import type { LanguageModel } from "ai";
import {
  addUsage,
  contentHash,
  DEFAULT_CONCURRENCY,
  InputError,
  InterruptedError,
  type Persona,
  pool,
  type TokenUsage,
  ZERO_USAGE,
} from "../core/index.ts";
import {
  type EvaluationRow,
  type JudgeOption,
  type JudgeSettings,
  openStore,
  prepareJudge,
  type Store,
} from "../engine/index.ts";
import type { Cassette, Judge, JudgeDescriptor, JudgeModelOptions } from "../judge/index.ts";
import { type WorldAgent, type WorldFile, worldAgentModel } from "../sim/index.ts";
import { EXPERIMENT_RESULT_FORMAT } from "./compare.ts";
import { type EnvironmentRecord, FACILITATOR, runEnvironment } from "./experiment-environment.ts";
import { loadPopulation, personContentHash } from "./population.ts";
import { generatePopulation } from "./population-factory.ts";
import { resolvePopulationProfile } from "./population-profile.ts";
import {
  armCorrections,
  planEnvironments,
  type Scenario,
  type ScenarioArmName,
  type ScenarioEnvironment,
  type ScenarioMetric,
  scaleScenario,
  scenarioMetrics,
} from "./scenario.ts";

/** The arms in the order they run and are reported. */
export const EXPERIMENT_ARMS: readonly ScenarioArmName[] = ["control", "treatment"];

/** A person as the runner needs them: a hand-written population may give just these. */
export interface ExperimentPerson {
  id: string;
  name: string;
  persona: Persona;
  nudges?: WorldAgent["nudges"];
}

/** Whose model an agent's act goes to: a model per arm, environment or agent (a test's scripted models). */
export interface AgentModelContext {
  arm: ScenarioArmName;
  /** 0-based environment index. */
  environment: number;
  agent: WorldAgent;
}

export interface RunExperimentOptions {
  /**
   * The agents' model: a spec (`openai:gpt-4o-mini`, with `modelSettings` for a base URL or key variable),
   * an AI SDK model, or a function giving each arm, environment and agent its model.
   */
  model: LanguageModel | string | ((context: AgentModelContext) => LanguageModel);
  /** How the agents' model is named in the record when it is a function. Default `custom`. */
  modelName?: string;
  modelSettings?: JudgeModelOptions;
  /** Judges the persona dimensions, the extraction, task completion, the gate and the interventions. */
  judge: JudgeOption;
  judgeSettings?: JudgeSettings;
  /** Where the experiment is kept (and resumed from): an open Store or a location. Default `memory://`. */
  store?: Store | string;
  /** Shrinks N_e and N_a proportionally (scaleScenario); 1 (the default) runs the scenario as written. */
  scale?: number;
  /** Seeds every environment's world instead of the scenario's `seed`. */
  seed?: number;
  /**
   * The people instead of the scenario's population: a folder, or people already loaded or written by
   * hand. The first `population.size` are used, in order.
   */
  population?: string | { people: readonly ExperimentPerson[] };
  /** Answers the population factory's stages when the scenario names a profile. Default: the agents' model. */
  populationModel?: LanguageModel;
  /** Records or replays the population factory's answers. */
  populationCassette?: Cassette;
  /** Judge calls in flight at once. Default 16. */
  concurrency?: number;
  /**
   * Environment runs (one arm of one environment each) under way at once; each has `group_size` agents
   * acting at once. Default: concurrency ÷ group_size, at least 1.
   */
  environmentConcurrency?: number;
  /** The action gate's per-dimension judge deadline in ms (it passes the message when it runs out). Default 5,000. */
  gateTimeoutMs?: number;
  /** The agents' sampling temperature. Default: the provider's. */
  temperature?: number;
  /** Stops the experiment: environments under way are dropped (a resume runs them again), finished ones kept. */
  signal?: AbortSignal;
  onProgress?: (event: ExperimentProgressEvent) => void;
}

export type EnvironmentPhase =
  | "started"
  | "simulated"
  | "judged"
  | "completed"
  | "reused"
  | "failed"
  | "interrupted";

export type ExperimentProgressEvent =
  /** The experiment exists in the store; `reused` of the `total` environment runs are finished already. */
  | { type: "started"; experiment_id: string; total: number; reused: number; resumed: boolean }
  /** One arm of one environment moved on. */
  | { type: "environment"; arm: ScenarioArmName; index: number; phase: EnvironmentPhase }
  | { type: "finished"; experiment_id: string; status: "completed" | "failed" | "interrupted" };

/** One arm's side of the document. */
export interface ExperimentArmResult {
  label: string;
  /** The arm's correction settings in full (everything not set is off). */
  corrections: Record<string, unknown>;
  /** Per metric, its values: per-agent metrics by environment then agent id; per-environment ones by environment. */
  metrics: Record<string, number[]>;
  /** Calls sent to a provider, and the judge calls the verdict cache answered instead (experiment-environment.ts). */
  calls: { agent: number; judge: number; judge_cached: number };
  tokens: { agent: TokenUsage; judge: TokenUsage };
  /** Verdicts that errored, excluded from the metrics. */
  errored: number;
  /** Gate checks that passed unjudged because the judge timed out or failed (fail-open). */
  gate_unjudged: number;
  /**
   * The survey's answers (scenarios with one), per question: by environment, then agent id; null where an
   * agent gave none.
   */
  survey?: Record<string, (string | null)[]>;
}

export interface ExperimentEnvironmentResult {
  index: number;
  group: number;
  parameter_set: number;
  repetition: number;
  /** The world's seed, the same in both arms. */
  seed: number;
  members: string[];
  rapporteur: string;
  arms: Record<ScenarioArmName, EnvironmentRecord>;
}

/** `dramaturg.experiment-result/v1` as the runner writes it: ids and times are left out, so reruns compare equal. */
export interface ExperimentResultDocument {
  format: typeof EXPERIMENT_RESULT_FORMAT;
  scenario: {
    id: string;
    title: string;
    /** Hash of the scenario as run (after scaling). */
    hash: string;
    scale: number;
    group_size: number;
    /** N_e per arm. */
    environments: number;
    steps: number;
  };
  seed: number;
  population: { source: string; size: number; hash: string };
  models: { agents: string };
  judge: JudgeDescriptor & { mode: "individual" | "batch"; double_check: boolean };
  metrics: ScenarioMetric[];
  arms: Record<ScenarioArmName, ExperimentArmResult>;
  environments: ExperimentEnvironmentResult[];
}

export interface ExperimentRun {
  /** The experiment's stored evaluation. */
  evaluation_id: string;
  document: ExperimentResultDocument;
  /** Environment runs taken from the store rather than run now. */
  reused: number;
}

/** A stored environment run's configuration: what finds it again. */
interface EnvironmentRowConfig {
  experiment_key: string;
  environment_key: string;
  arm: ScenarioArmName;
  index: number;
  seed: number;
}

/** Thrown when the signal stops an experiment: what is finished is kept, and the same run resumes it. */
export class ExperimentInterruptedError extends InterruptedError {
  constructor({ evaluationId, done, total }: { evaluationId: string; done: number; total: number }) {
    super({ evaluationId, done, total, kind: "experiment" });
    this.message = `experiment interrupted after ${done} of ${total} environment runs; run it again on the same store to finish it (finished environments are kept)`;
  }
}

/** One arm of one environment of an experiment: a run of its own, stored as its own row. */
export interface ExperimentTask {
  arm: ScenarioArmName;
  environment: ScenarioEnvironment;
  /** The world's seed, the same in both arms. */
  worldSeed: number;
  /** What finds its finished run again (see finishedEnvironments). */
  environmentKey: string;
}

/**
 * An experiment as stored: everything that runs its environments and assembles its document, in this process
 * or in the queue's workers (which read it back with {@link storedExperimentPlan}).
 */
export interface StoredExperimentPlan {
  /** The experiment's stored evaluation. */
  experimentId: string;
  /** What identifies the experiment (scenario, seed, population, models): its environment runs carry it. */
  key: string;
  /** The scenario as run (scaled). */
  scenario: Scenario;
  scale: number;
  seed: number;
  populationHash: string;
  /** How the document names where the people came from (`folder:…`, `given`, `profile:…`). */
  populationSource: string;
  modelName: string;
  judge: JudgeDescriptor;
  agents: WorldAgent[];
  /** Every environment run, in plan order: environment by environment, control then treatment. */
  tasks: ExperimentTask[];
}

/** What `storeExperiment` needs beyond the scenario: the run's options, with its store open and its judge known. */
export type StoreExperimentOptions = Omit<RunExperimentOptions, "store" | "judge"> & {
  store: Store;
  /** The judge the environments are judged by (the document names it; the experiment's key includes it). */
  judge: JudgeDescriptor;
};

/**
 * Runs a scenario's experiment (or resumes it: see the file header) and returns its result document.
 * Bad input (the scenario scale, the population, the model spec) throws an InputError before anything is
 * written or any model is called.
 */
export async function runExperiment(
  scenarioIn: Scenario,
  options: RunExperimentOptions,
): Promise<ExperimentRun> {
  const checked = checkExperiment(scenarioIn, options);
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const parallel =
    options.environmentConcurrency ?? Math.max(1, Math.floor(concurrency / checked.scenario.group_size));
  if (!Number.isInteger(parallel) || parallel < 1)
    throw new InputError(
      `expected environmentConcurrency to be a whole number of 1 or more, got ${parallel}`,
    );
  const modelOf = typeof options.model === "function" ? options.model : () => checked.single!;

  const ready = prepareJudge(options.judge, options.judgeSettings, { concurrency });
  let opened: Store | undefined;
  try {
    opened = typeof options.store === "object" ? undefined : await openStore(options.store ?? "memory://");
  } catch (error) {
    await ready.close();
    throw error;
  }
  const store = typeof options.store === "object" ? options.store : opened!;
  try {
    const { plan, finished, resumed } = await storeChecked(checked, {
      ...options,
      store,
      judge: ready.judge.descriptor,
    });
    const { experimentId, tasks } = plan;
    const records = new Map<string, EnvironmentRecord>();
    for (const task of tasks) {
      const record = finished.get(task.environmentKey);
      if (record) records.set(task.environmentKey, record);
    }
    const reused = records.size;
    options.onProgress?.({
      type: "started",
      experiment_id: experimentId,
      total: tasks.length,
      reused,
      resumed: resumed || reused > 0,
    });
    for (const task of tasks)
      if (records.has(task.environmentKey))
        options.onProgress?.({
          type: "environment",
          arm: task.arm,
          index: task.environment.index,
          phase: "reused",
        });

    // One controller for the environments under way: the caller's signal, or the first failure, stops them all.
    const stop = new AbortController();
    // Every model call of every environment under way follows this one signal (waiting for a judge's slot
    // included): hundreds of listeners are its normal load, not a leak, and no warning is printed for them.
    setMaxListeners(0, stop.signal);
    const onAbort = () => stop.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    let failure: unknown;
    const pending = tasks.filter((t) => !records.has(t.environmentKey));
    const runTask = async (task: ExperimentTask) => {
      const { arm, environment } = task;
      try {
        const record = await runExperimentEnvironment(plan, task, {
          store,
          model: (agent) => modelOf({ arm, environment: environment.index, agent }),
          judge: ready.judge,
          concurrency,
          gateTimeoutMs: options.gateTimeoutMs,
          temperature: options.temperature,
          signal: stop.signal,
          onPhase: (phase) =>
            options.onProgress?.({ type: "environment", arm, index: environment.index, phase }),
        });
        records.set(task.environmentKey, record);
      } catch (error) {
        // The first failure stops the others (interrupted, for a resume to redo).
        if (!stop.signal.aborted) {
          failure = error;
          stop.abort(error);
        }
      }
    };
    try {
      await pool(pending, runTask, { limit: parallel, signal: stop.signal });
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
    }

    if (failure !== undefined || records.size < tasks.length) {
      const interrupted = failure === undefined;
      if (interrupted) await store.evaluations.interrupt(experimentId);
      else
        await store.evaluations.fail(
          experimentId,
          failure instanceof Error ? failure.message : String(failure),
        );
      options.onProgress?.({
        type: "finished",
        experiment_id: experimentId,
        status: interrupted ? "interrupted" : "failed",
      });
      if (interrupted)
        throw new ExperimentInterruptedError({
          evaluationId: experimentId,
          done: records.size,
          total: tasks.length,
        });
      throw failure;
    }

    const document = await completeExperiment(store, plan, records);
    options.onProgress?.({ type: "finished", experiment_id: experimentId, status: "completed" });
    return { evaluation_id: experimentId, document, reused };
  } finally {
    await ready.close();
    await opened?.close();
  }
}

/** What is checked before anything is opened: the scenario as run, the seed, the people given, the agents' model. */
function checkExperiment(scenarioIn: Scenario, options: Omit<RunExperimentOptions, "judge">) {
  const scale = options.scale ?? 1;
  const scenario = scale === 1 ? scenarioIn : scaleScenario(scenarioIn, scale);
  const seed = options.seed ?? scenario.seed;
  if (!Number.isInteger(seed)) throw new InputError(`expected a whole number as the seed, got ${seed}`);
  planEnvironments(scenario);
  const given = givenPopulation(options.population, scenario);
  const single =
    typeof options.model === "function" ? undefined : experimentModel(options.model, options.modelSettings);
  return { scale, scenario, seed, given, single, modelName: agentModelName(options) };
}

/**
 * Stores the experiment as runExperiment does — or, when the same experiment (scenario, seed, population,
 * models) is stored unfinished, starts that one again — and returns its plan, the records of its environment
 * runs finished already (by environment key), and whether it was stored before. Bad input throws an InputError
 * before anything is written.
 */
export async function storeExperiment(
  scenario: Scenario,
  options: StoreExperimentOptions,
): Promise<{ plan: StoredExperimentPlan; finished: Map<string, EnvironmentRecord>; resumed: boolean }> {
  return storeChecked(checkExperiment(scenario, options), options);
}

async function storeChecked(
  { scale, scenario, seed, given, single, modelName }: ReturnType<typeof checkExperiment>,
  options: StoreExperimentOptions,
): Promise<{ plan: StoredExperimentPlan; finished: Map<string, EnvironmentRecord>; resumed: boolean }> {
  const { store, judge } = options;
  const scenarioHash = contentHash(scenario);
  const populationSource = given
    ? { hash: given.hash }
    : {
        profile: scenario.population.profile,
        size: scenario.population.size,
        seed: scenario.population.seed,
      };
  const key = contentHash({
    scenario: scenarioHash,
    seed,
    population: populationSource,
    agents: modelName,
    judge,
  });
  const earlier = await experimentRows(store, key);
  const unfinished = earlier.find((row) => row.status !== "completed");
  const people =
    given?.people ??
    (await storedPeople(store, earlier)) ??
    (await generated(scenario, options, options.populationModel ?? single));
  const populationHash = given?.hash ?? peopleHash(people);
  const agents = worldAgents(people);
  const row = unfinished
    ? await store.evaluations.start(unfinished.id)
    : await store.evaluations
        .create({
          kind: "experiment",
          source: scenario.id,
          config: {
            experiment_key: key,
            scenario: { id: scenario.id, hash: scenarioHash },
            scale,
            seed,
            population_hash: populationHash,
            models: { agents: modelName },
            judge,
          },
          agents: agents.map((a) => a.id),
          // The judge again, in the input's JSON text: its key order kept, as the document prints it.
          input: { scenario, people, judge },
        })
        .then((created) => store.evaluations.start(created.id));
  return {
    plan: {
      experimentId: row.id,
      key,
      scenario,
      scale,
      seed,
      populationHash,
      populationSource: populationLabel(options.population, scenario),
      modelName,
      judge,
      agents,
      tasks: experimentTasks(scenario, seed, key),
    },
    finished: await finishedEnvironments(store, key),
    resumed: unfinished !== undefined,
  };
}

/**
 * The people as a world's agents. Their ids are checked here, whatever the population's source (given,
 * generated, stored): the environments' worlds are built from them without a parse of their own.
 */
function worldAgents(people: readonly ExperimentPerson[]): WorldAgent[] {
  checkPeopleIds(people);
  return people.map(
    (p): WorldAgent => ({
      id: p.id,
      name: p.name,
      persona: p.persona,
      ...(p.nudges ? { nudges: p.nudges } : {}),
    }),
  );
}

/** Every environment run of an experiment, in plan order. */
function experimentTasks(scenario: Scenario, seed: number, key: string): ExperimentTask[] {
  return planEnvironments(scenario).flatMap((environment) =>
    EXPERIMENT_ARMS.map((arm) => {
      const worldSeed = seed + environment.index;
      const environmentKey = contentHash({
        experiment: key,
        arm,
        index: environment.index,
        seed: worldSeed,
      });
      return { arm, environment, worldSeed, environmentKey };
    }),
  );
}

/**
 * A stored experiment's plan read back from its row (its scenario, people, seed and models), as a queue's
 * worker needs it; `populationSource` is what the document names the people's source (see StoredExperimentPlan).
 */
export async function storedExperimentPlan(
  store: Store,
  experimentId: string,
  populationSource: string,
): Promise<StoredExperimentPlan> {
  const row = await store.evaluations.get(experimentId);
  if (row?.kind !== "experiment")
    throw new InputError(`experiment ${experimentId} does not exist`, { place: "experiment_id" });
  const input = (await store.evaluations.input(row.id)) as
    | { scenario?: Scenario; people?: ExperimentPerson[]; judge?: JudgeDescriptor }
    | undefined;
  const config = row.config as {
    experiment_key: string;
    scale: number;
    seed: number;
    population_hash: string;
    models: { agents: string };
    judge: JudgeDescriptor;
  };
  if (!input?.scenario || !input.people || typeof config.experiment_key !== "string")
    throw new InputError(`experiment ${experimentId} was stored without its scenario and people`);
  const { scenario, people } = input;
  return {
    experimentId: row.id,
    key: config.experiment_key,
    scenario,
    scale: config.scale,
    seed: config.seed,
    populationHash: config.population_hash,
    populationSource,
    modelName: config.models.agents,
    // The configuration's copy is JSON (jsonb) whose keys PostgreSQL reorders; one stored before the input
    // kept it is the best there is.
    judge: input.judge ?? config.judge,
    agents: worldAgents(people),
    tasks: experimentTasks(scenario, config.seed, config.experiment_key),
  };
}

export interface ExperimentEnvironmentRunOptions {
  store: Store;
  /** Each member's model. */
  model: (agent: WorldAgent) => LanguageModel;
  judge: Judge;
  /** Judge calls in flight of the environment's persona evaluation. */
  concurrency: number;
  gateTimeoutMs?: number;
  temperature?: number;
  /** Stops the run: its row is then interrupted (a rerun runs it again), not failed. */
  signal?: AbortSignal;
  onPhase?: (phase: EnvironmentPhase) => void;
}

/**
 * Runs one environment run of a stored experiment as its own stored row (kind `experiment_environment`, under
 * the experiment): completed with its record, or failed (interrupted, when `signal` stopped it) and thrown.
 */
export async function runExperimentEnvironment(
  plan: StoredExperimentPlan,
  task: ExperimentTask,
  options: ExperimentEnvironmentRunOptions,
): Promise<EnvironmentRecord> {
  const { store, signal, onPhase } = options;
  const { arm, environment } = task;
  const config: EnvironmentRowConfig = {
    experiment_key: plan.key,
    environment_key: task.environmentKey,
    arm,
    index: environment.index,
    seed: task.worldSeed,
  };
  const members = environment.members.map((i) => plan.agents[i]!);
  let rowId: string | undefined;
  try {
    const created = await store.evaluations.create({
      kind: "experiment_environment",
      source: `experiment:${plan.experimentId}`,
      config: { ...config },
      agents: members.map((m) => m.id),
    });
    rowId = created.id;
    await store.evaluations.start(created.id);
    onPhase?.("started");
    const record = await runEnvironment(
      {
        scenario: plan.scenario,
        arm,
        environment,
        members,
        seed: task.worldSeed,
        model: options.model,
        judge: options.judge,
        store,
        runId: created.id,
        concurrency: options.concurrency,
        gateTimeoutMs: options.gateTimeoutMs,
        temperature: options.temperature,
        signal,
        onPhase,
      },
      armCorrections(plan.scenario.arms[arm]),
    );
    await store.evaluations.complete(created.id, {
      result: record,
      errored: record.errored,
      token_usage: addUsage(record.tokens.agent, record.tokens.judge),
    });
    onPhase?.("completed");
    return record;
  } catch (error) {
    const stopped = signal?.aborted === true;
    if (rowId !== undefined)
      await (stopped
        ? store.evaluations.interrupt(rowId)
        : store.evaluations.fail(rowId, error instanceof Error ? error.message : String(error))
      ).catch(() => {});
    onPhase?.(stopped ? "interrupted" : "failed");
    throw error;
  }
}

/**
 * Assembles the document from every environment run's record (by environment key; all of them), in plan
 * order, and completes the experiment with it: the same bytes whoever ran which environment, and when.
 */
export async function completeExperiment(
  store: Store,
  plan: StoredExperimentPlan,
  records: ReadonlyMap<string, EnvironmentRecord>,
): Promise<ExperimentResultDocument> {
  const document = assemble({
    scenario: plan.scenario,
    scale: plan.scale,
    seed: plan.seed,
    populationHash: plan.populationHash,
    populationSource: plan.populationSource,
    modelName: plan.modelName,
    judge: {
      ...plan.judge,
      mode: plan.scenario.judge.mode,
      double_check: plan.scenario.judge.double_check,
    },
    tasks: plan.tasks.map((t) => {
      const record = records.get(t.environmentKey);
      if (!record)
        throw new InputError(
          `experiment ${plan.experimentId}: the ${t.arm} run of environment ${t.environment.index + 1} has not finished`,
        );
      return { ...t, record };
    }),
    agents: plan.agents,
  });
  const total = EXPERIMENT_ARMS.reduce(
    (sum, arm) => addUsage(sum, addUsage(document.arms[arm].tokens.agent, document.arms[arm].tokens.judge)),
    ZERO_USAGE,
  );
  await store.evaluations.complete(plan.experimentId, {
    result: document,
    token_usage: total,
    errored: erroredVerdicts(document),
  });
  return document;
}

/** Verdicts of every arm that errored (left out of the metrics). */
export function erroredVerdicts(document: ExperimentResultDocument): number {
  return EXPERIMENT_ARMS.reduce((n, arm) => n + document.arms[arm].errored, 0);
}

/** Whether the experiment measured nothing: no metric has a value, and verdicts errored (the judge failed). */
export function measuredNothing(document: ExperimentResultDocument): boolean {
  const measured = EXPERIMENT_ARMS.some((arm) =>
    Object.values(document.arms[arm].metrics).some((values) => values.length > 0),
  );
  return !measured && erroredVerdicts(document) > 0;
}

/** The population given as an option (a folder, or people), the first `size` of it, with its hash. */
function givenPopulation(
  population: RunExperimentOptions["population"],
  scenario: Scenario,
): { people: ExperimentPerson[]; hash: string } | undefined {
  const source = population ?? scenario.population.folder;
  if (source === undefined) return undefined;
  const all: readonly ExperimentPerson[] =
    typeof source === "string" ? loadPopulation(source).people : source.people;
  const size = scenario.population.size;
  if (all.length < size)
    throw new InputError(
      `population: expected at least ${size} people (population.size of scenario ${scenario.id}), got ${all.length}`,
      typeof source === "string" ? { file: source } : { place: "population" },
    );
  const people = all.slice(0, size).map(({ id, name, persona, nudges }) => ({
    id,
    name,
    persona,
    ...(nudges ? { nudges } : {}),
  }));
  checkPeopleIds(people);
  return { people, hash: peopleHash(people) };
}

/** Refuses an id a world cannot take: the facilitator's, or one an earlier person has. */
function checkPeopleIds(people: readonly ExperimentPerson[]): void {
  const ids = new Set<string>();
  for (const [i, p] of people.entries()) {
    if (p.id === FACILITATOR)
      throw new InputError(
        `population: person ${i + 1} has the id "${FACILITATOR}", which is who posts the scenario's prompts; expected another id`,
        { place: `people[${i}].id` },
      );
    if (ids.has(p.id))
      throw new InputError(
        `population: person ${i + 1} has the id "${p.id}" of an earlier one; expected unique ids`,
        {
          place: `people[${i}].id`,
        },
      );
    ids.add(p.id);
  }
}

function peopleHash(people: readonly ExperimentPerson[]): string {
  return contentHash(people.map((p) => personContentHash(p)));
}

function populationLabel(population: RunExperimentOptions["population"], scenario: Scenario): string {
  if (typeof population === "string") return `folder:${population}`;
  if (population) return "given";
  if (scenario.population.folder !== undefined) return `folder:${scenario.population.folder}`;
  return `profile:${scenario.population.profile}`;
}

/** The experiment's rows with this key, newest first. */
async function experimentRows(store: Store, key: string): Promise<EvaluationRow[]> {
  const rows = await allRows(store, "experiment");
  return rows.filter((r) => r.config.experiment_key === key);
}

/** Every stored row of a kind, newest first, page by page. */
async function allRows(
  store: Store,
  kind: "experiment" | "experiment_environment",
): Promise<EvaluationRow[]> {
  const rows: EvaluationRow[] = [];
  for (;;) {
    const last = rows.at(-1);
    const page = await store.evaluations.list({
      kind,
      limit: 500,
      ...(last ? { after: { id: last.id, created_at: last.created_at } } : {}),
    });
    rows.push(...page);
    if (page.length < 500) return rows;
  }
}

/** The records of the experiment's (its key's) finished environment runs, by environment key. */
export async function finishedEnvironments(
  store: Store,
  key: string,
): Promise<Map<string, EnvironmentRecord>> {
  const found = new Map<string, EnvironmentRecord>();
  for (const [environmentKey, id] of await finishedEnvironmentRows(store, key)) {
    const record = (await store.evaluations.result(id)) as EnvironmentRecord | undefined;
    if (record) found.set(environmentKey, record);
  }
  return found;
}

/**
 * The experiment's (its key's) finished environment runs: the newest row of each environment key. Reads no
 * record: what tells how many are done.
 */
export async function finishedEnvironmentRows(store: Store, key: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const row of await allRows(store, "experiment_environment")) {
    const config = row.config as Partial<EnvironmentRowConfig>;
    if (row.status !== "completed" || config.experiment_key !== key || config.environment_key === undefined)
      continue;
    if (!found.has(config.environment_key)) found.set(config.environment_key, row.id);
  }
  return found;
}

/** The people an earlier run of the experiment generated and kept, so that a resume runs the same agents. */
async function storedPeople(
  store: Store,
  rows: readonly EvaluationRow[],
): Promise<ExperimentPerson[] | undefined> {
  for (const row of rows) {
    const input = (await store.evaluations.input(row.id)) as { people?: ExperimentPerson[] } | undefined;
    if (input?.people) return input.people;
  }
  return undefined;
}

/** The scenario's built-in profile, generated by the population factory. */
async function generated(
  scenario: Scenario,
  options: Pick<RunExperimentOptions, "populationCassette" | "concurrency" | "signal">,
  model: LanguageModel | undefined,
): Promise<ExperimentPerson[]> {
  if (model === undefined && options.populationCassette === undefined)
    throw new InputError(
      `scenario ${scenario.id} generates its population (profile ${scenario.population.profile}): give a populationModel, a cassette, or the people`,
    );
  const population = await generatePopulation({
    profile: resolvePopulationProfile(scenario.population.profile!),
    size: scenario.population.size,
    seed: scenario.population.seed,
    model,
    cassette: options.populationCassette,
    concurrency: options.concurrency,
    signal: options.signal,
  });
  return population.people.map((p) => ({ id: p.id, name: p.name, persona: p.persona as Persona }));
}

/**
 * The one model of every agent, from a spec (with a base URL or key variable) or a model: a spec is resolved
 * now, so that a bad one fails before anything runs.
 */
export function experimentModel(model: LanguageModel | string, settings?: JudgeModelOptions): LanguageModel {
  // worldAgentModel reads the file's own `model:` only when none is given; an experiment's worlds have none.
  return worldAgentModel({} as WorldFile, model, settings);
}

function agentModelName({ model, modelName }: Pick<RunExperimentOptions, "model" | "modelName">): string {
  if (typeof model === "string") return model;
  if (typeof model === "function") return modelName ?? "custom";
  return modelName ?? `${model.provider}:${model.modelId}`;
}

/** The document, in plan order: environments by index, per-agent values by agent id within an environment. */
function assemble({
  scenario,
  scale,
  seed,
  populationHash,
  populationSource,
  modelName,
  judge,
  tasks,
  agents,
}: {
  scenario: Scenario;
  scale: number;
  seed: number;
  populationHash: string;
  populationSource: string;
  modelName: string;
  judge: ExperimentResultDocument["judge"];
  tasks: {
    arm: ScenarioArmName;
    environment: ReturnType<typeof planEnvironments>[number];
    worldSeed: number;
    record: EnvironmentRecord;
  }[];
  agents: readonly WorldAgent[];
}): ExperimentResultDocument {
  const metrics = scenarioMetrics(scenario);
  const arms = {} as Record<ScenarioArmName, ExperimentArmResult>;
  for (const arm of EXPERIMENT_ARMS) {
    const values: Record<string, number[]> = Object.fromEntries(metrics.map((m) => [m.name, []]));
    let calls = { agent: 0, judge: 0, judge_cached: 0 };
    let tokens = { agent: ZERO_USAGE as TokenUsage, judge: ZERO_USAGE as TokenUsage };
    let errored = 0;
    let unjudged = 0;
    const survey = scenario.survey
      ? Object.fromEntries(scenario.survey.map((q) => [q.id, [] as (string | null)[]]))
      : undefined;
    for (const { record } of tasks.filter((t) => t.arm === arm)) {
      for (const [question, answers] of Object.entries(survey ?? {})) {
        const byAgent = record.survey?.[question] ?? {};
        for (const id of Object.keys(byAgent).sort()) answers.push(byAgent[id] ?? null);
      }
      for (const metric of metrics) {
        const list = values[metric.name]!;
        if (metric.level === "agent") {
          const byAgent = record.agents[metric.name] ?? {};
          for (const id of Object.keys(byAgent).sort()) {
            const value = byAgent[id];
            if (typeof value === "number") list.push(value);
          }
        } else {
          const value = record.environment[metric.name];
          if (typeof value === "number") list.push(value);
        }
      }
      calls = {
        agent: calls.agent + record.calls.agent,
        judge: calls.judge + record.calls.judge,
        // Records stored before these were kept count neither.
        judge_cached: calls.judge_cached + (record.calls.judge_cached ?? 0),
      };
      unjudged += record.gate.unjudged ?? 0;
      tokens = {
        agent: addUsage(tokens.agent, record.tokens.agent),
        judge: addUsage(tokens.judge, record.tokens.judge),
      };
      errored += record.errored;
    }
    const settings = scenario.arms[arm];
    arms[arm] = {
      label: settings.label ?? (arm === "control" ? "Control" : "Treatment"),
      corrections: { ...armCorrections(settings) },
      metrics: values,
      calls,
      tokens,
      errored,
      gate_unjudged: unjudged,
      ...(survey ? { survey } : {}),
    };
  }
  const environments: ExperimentEnvironmentResult[] = [];
  for (const environment of planEnvironments(scenario)) {
    const pair = tasks.filter((t) => t.environment.index === environment.index);
    environments.push({
      index: environment.index,
      group: environment.group,
      parameter_set: environment.parameter_set,
      repetition: environment.repetition,
      seed: pair[0]!.worldSeed,
      members: environment.members.map((i) => agents[i]!.id),
      rapporteur: agents[environment.rapporteur]!.id,
      arms: Object.fromEntries(pair.map((t) => [t.arm, t.record])) as Record<
        ScenarioArmName,
        EnvironmentRecord
      >,
    });
  }
  return {
    format: EXPERIMENT_RESULT_FORMAT,
    scenario: {
      id: scenario.id,
      title: scenario.title,
      hash: contentHash(scenario),
      scale,
      group_size: scenario.group_size,
      environments: scenario.environments,
      steps: scenario.steps,
    },
    seed,
    population: { source: populationSource, size: agents.length, hash: populationHash },
    models: { agents: modelName },
    judge,
    metrics,
    arms,
    environments,
  };
}
