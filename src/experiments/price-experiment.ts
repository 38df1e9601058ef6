// Prices an experiment before it runs (`experiment run --dry-run`): per arm, the agents' model calls and the
// judge's, with their tokens and cost, from the prompts a run would send on a synthetic transcript of what
// each environment is expected to say — every agent one message an act, the rapporteur one write-up. Nothing
// is called and nothing is written. Where a count depends on the models' answers (the gate's redrafts, a
// variety check that waits for enough messages), it is the most a run with one message an act can make.
import {
  ACTION_LEVEL_WINDOW_DEFAULTS,
  agentTrajectory,
  type CorrectionSettings,
  contentHash,
  EVALUATION_WINDOW_DEFAULTS,
  GATE_DIMENSIONS,
  type GateDimension,
  InputError,
  type Message,
  parseTranscriptValue,
  renderPersona,
  renderTrajectory,
  TRANSCRIPT_FORMAT,
  type TrajectoryEvent,
  type Transcript,
} from "../core/index.ts";
import { builtinGatePropositionSet, type GatePropositionSet } from "../corrections/index.ts";
import { type JudgeRequest, MAX_BATCH_SIZE } from "../judge/index.ts";
import {
  type EvaluationPlan,
  estimatePlan,
  type PlanEstimate,
  type PreparedPersonaEvaluation,
  preparePersonaEvaluation,
} from "../personas/index.ts";
import {
  ANTI_CONVERGENCE_CLAIM,
  actPrompt,
  INTERVENTION_DIMENSION,
  systemPrompt,
  VARIETY_CLAIM,
} from "../sim/index.ts";
import { extractionRequest, FACILITATOR, taskCompletionRequest } from "./experiment-environment.ts";
import { loadPopulation } from "./population.ts";
import { resolvePopulationProfile } from "./population-profile.ts";
import { dimensionsPrompt } from "./population-prompts.ts";
import { EXPERIMENT_ARMS, type ExperimentPerson } from "./run-experiment.ts";
import {
  armCorrections,
  planEnvironments,
  type Scenario,
  type ScenarioArmName,
  type ScenarioEnvironment,
  scaleScenario,
} from "./scenario.ts";

/** USD per million tokens (the shape of the project file's `prices`). */
export interface ModelPrice {
  input_per_million: number;
  output_per_million: number;
}

/**
 * What the estimate assumes of the answers it cannot see: input tokens come from the real prompts, these
 * lengths stand in for what the models will write. About 4 characters a token, as the judge's estimate.
 */
export const EXPERIMENT_PRICE_ASSUMPTIONS = Object.freeze({
  /** Messages an agent sends in one act (a run may send up to 3; judge calls grow with them). */
  messages_per_act: 1,
  /** Characters of one agent message. */
  message_chars: 480,
  /** Characters of the rapporteur's write-up. */
  report_chars: 2_400,
  /** Characters of a persona the factory has still to write (a given population's own are used). */
  persona_chars: 3_600,
  /** Tokens of the `send_message` tool's definition, sent with every agent call. */
  tool_tokens: 90,
  /** Tokens of a tool call around its text. */
  tool_call_tokens: 25,
  /** Population factory: output tokens of the dimensions, of a segment's plan, of one persona. */
  population_output_tokens: { dimensions: 900, plan: 700, persona: 900 },
  /** Population factory: characters of the dimensions a plan prompt shows, and of one person's characteristics. */
  population_context_chars: { dimensions: 3_000, characteristics: 800 },
});

const CHARS_PER_TOKEN = 4;
const tokens = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);

/** Calls and tokens of one part of the work, with their cost when the model's price is known. */
export interface PriceLine {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd?: number;
}

/** What the judge does in one arm, part by part. */
export interface JudgePriceParts {
  /** The persona dimensions (the engine's plan, double checks included). */
  personas: PriceLine;
  /** Counting the ideas or opinions in the rapporteur's trajectory. */
  extraction: PriceLine;
  task_completion: PriceLine;
  /** The action gate: every attempt of every message (at most). */
  gate: PriceLine;
  /** Textual preconditions of the interventions the arm turns on. */
  interventions: PriceLine;
}

export interface ExperimentArmPrice {
  label: string;
  environments: number;
  /** The agents' model: one call an act (group size × world steps, and the rapporteur), plus the gate's redrafts. */
  agent: PriceLine;
  judge: PriceLine & { parts: JudgePriceParts };
  /** Whether the counts are the most the arm can make (the gate may redraft less) rather than what it makes. */
  upper_bound: boolean;
  cost_usd?: number;
}

export interface ExperimentPrice {
  scenario: {
    id: string;
    title: string;
    scale: number;
    group_size: number;
    /** N_e per arm. */
    environments: number;
    steps: number;
    /** Distinct agents. */
    agents: number;
  };
  models: { agents: string; judge: string };
  /** The population factory's calls on the agents' model; absent when the people are given. */
  population?: PriceLine & { generated: number };
  arms: Record<ScenarioArmName, ExperimentArmPrice>;
  total: { agent: PriceLine; judge: PriceLine; cost_usd?: number };
  /** When a price is unknown, no cost is given for it (and none in the totals it is part of). */
  prices: { agents: ModelPrice | null; judge: ModelPrice | null };
  assumptions: typeof EXPERIMENT_PRICE_ASSUMPTIONS;
}

export interface PriceExperimentOptions {
  /** The agents' model as the record names it (`openai:gpt-4o-mini`). */
  model: string;
  /** The judge as the record names it; a `fixtures:` judge makes no model calls. */
  judge: string;
  /** Shrinks the scenario as `runExperiment` does. Default 1. */
  scale?: number;
  /** The people instead of the scenario's population, as `runExperiment` takes them. */
  population?: string | { people: readonly ExperimentPerson[] };
  /** Prices of the two models; a model without one gets tokens and no cost. */
  prices?: { agents?: ModelPrice; judge?: ModelPrice };
}

/**
 * Prices a scenario's experiment without calling a model or writing anything. Bad input (the scale, too few
 * people) throws the InputError `runExperiment` would.
 */
export async function priceExperiment(
  scenarioIn: Scenario,
  options: PriceExperimentOptions,
): Promise<ExperimentPrice> {
  const scale = options.scale ?? 1;
  const scenario = scale === 1 ? scenarioIn : scaleScenario(scenarioIn, scale);
  const a = EXPERIMENT_PRICE_ASSUMPTIONS;
  const givenPeople = peopleOf(options.population, scenario);
  const people = givenPeople ?? syntheticPeople(scenario.population.size);
  const judgeLive = !options.judge.startsWith("fixtures:");
  const agentPrice = options.prices?.agents;
  const judgePrice = options.prices?.judge;

  const arms = {} as Record<ScenarioArmName, ArmTally>;
  for (const arm of EXPERIMENT_ARMS) arms[arm] = newArmTally();
  const settings = Object.fromEntries(
    EXPERIMENT_ARMS.map((arm) => [arm, armCorrections(scenario.arms[arm])]),
  ) as Record<ScenarioArmName, CorrectionSettings>;
  const gateSets = new Map<GateDimension, GatePropositionSet>();
  const gateSet = (d: GateDimension) => {
    let set = gateSets.get(d);
    if (!set) gateSets.set(d, (set = builtinGatePropositionSet(d)));
    return set;
  };

  for (const environment of planEnvironments(scenario)) {
    const members = environment.members.map((i) => people[i]!);
    const world = syntheticWorld(scenario, environment, members);
    // What both arms share: the agents' acts, the persona plan, the extraction and task completion.
    const personas = await personaEstimate(scenario, world.transcript, members);
    const extraction = estimateRequests([
      extractionRequest(scenario, environment, world.transcript, world.rapporteur),
    ]);
    const completion =
      environment.prompts.task_completion === undefined
        ? undefined
        : estimateRequests([
            taskCompletionRequest(scenario, environment.prompts.task_completion, world.transcript),
          ]);
    for (const arm of EXPERIMENT_ARMS) {
      const tally = arms[arm];
      const config = settings[arm];
      const gate = gateOf(config);
      tally.environments++;
      add(tally.judge.personas, personas);
      add(tally.judge.extraction, extraction);
      if (completion) add(tally.judge.task_completion, completion);
      for (const act of world.acts) {
        // The act, and at most max_correction_attempts redrafts of each message where the gate is on.
        const redrafts = gate.enabled ? config.max_correction_attempts * a.messages_per_act : 0;
        addLine(tally.agent, {
          calls: 1 + redrafts,
          input_tokens: act.inputTokens * (1 + redrafts),
          output_tokens: act.outputTokens * (1 + redrafts),
        });
        if (gate.dimensions.length > 0) {
          const requests = gate.dimensions.flatMap((d) => gateRequests(gateSet(d), act));
          const once = estimateRequests(requests);
          const attempts = 1 + config.max_correction_attempts;
          add(tally.judge.gate, {
            ...once,
            calls: once.calls * attempts,
            usage: {
              input_tokens: once.usage.input_tokens * attempts,
              output_tokens: once.usage.output_tokens * attempts,
            },
          });
        }
        if (gate.enabled) tally.upper_bound = true;
        if (act.rapporteur) continue;
        // Interventions are checked at the start of each world step, on what the agent had perceived before it.
        const checks: JudgeRequest[] = [];
        if (config.anti_convergence_enabled)
          checks.push(interventionRequest("anti_convergence", ANTI_CONVERGENCE_CLAIM, act));
        if (config.variety_intervention_enabled && act.sentBefore >= config.variety_message_threshold)
          checks.push(interventionRequest("variety", VARIETY_CLAIM, act));
        if (checks.length > 0) add(tally.judge.interventions, estimateRequests(checks));
      }
    }
  }

  const price = (line: PriceLine, p: ModelPrice | undefined): PriceLine =>
    p === undefined ? line : { ...line, cost_usd: costOf(line, p) };
  const outArms = {} as Record<ScenarioArmName, ExperimentArmPrice>;
  for (const arm of EXPERIMENT_ARMS) {
    const t = arms[arm];
    const judgeParts = Object.fromEntries(
      Object.entries(t.judge).map(([part, line]) => [
        part,
        price(judgeLive ? line : { ...line, calls: 0, input_tokens: 0, output_tokens: 0 }, judgePrice),
      ]),
    ) as unknown as JudgePriceParts;
    const judge = price(
      sumLines(Object.values(judgeParts).map(({ cost_usd: _, ...line }) => line)),
      judgePrice,
    );
    const agent = price(t.agent, agentPrice);
    outArms[arm] = {
      label: scenario.arms[arm].label ?? (arm === "control" ? "Control" : "Treatment"),
      environments: t.environments,
      agent,
      judge: { ...judge, parts: judgeParts },
      upper_bound: t.upper_bound,
      ...costField([agent, judge]),
    };
  }
  const population = givenPeople === undefined ? price(populationEstimate(scenario), agentPrice) : undefined;
  const totalAgent = price(
    sumLines([
      ...EXPERIMENT_ARMS.map((arm) => bare(outArms[arm].agent)),
      ...(population ? [bare(population)] : []),
    ]),
    agentPrice,
  );
  const totalJudge = price(sumLines(EXPERIMENT_ARMS.map((arm) => bare(outArms[arm].judge))), judgePrice);
  return {
    scenario: {
      id: scenario.id,
      title: scenario.title,
      scale,
      group_size: scenario.group_size,
      environments: scenario.environments,
      steps: scenario.steps,
      agents: scenario.population.size,
    },
    models: { agents: options.model, judge: options.judge },
    ...(population
      ? {
          population: {
            ...population,
            generated: scenario.population.size,
          },
        }
      : {}),
    arms: outArms,
    total: { agent: totalAgent, judge: totalJudge, ...costField([totalAgent, totalJudge]) },
    prices: { agents: agentPrice ?? null, judge: judgePrice ?? null },
    assumptions: EXPERIMENT_PRICE_ASSUMPTIONS,
  };
}

interface ArmTally {
  environments: number;
  agent: PriceLine;
  judge: Record<keyof JudgePriceParts, PriceLine>;
  upper_bound: boolean;
}

const zero = (): PriceLine => ({ calls: 0, input_tokens: 0, output_tokens: 0 });

function newArmTally(): ArmTally {
  return {
    environments: 0,
    agent: zero(),
    judge: {
      personas: zero(),
      extraction: zero(),
      task_completion: zero(),
      gate: zero(),
      interventions: zero(),
    },
    upper_bound: false,
  };
}

function addLine(into: PriceLine, line: PriceLine): void {
  into.calls += line.calls;
  into.input_tokens += line.input_tokens;
  into.output_tokens += line.output_tokens;
}

function add(into: PriceLine, estimate: PlanEstimate): void {
  addLine(into, {
    calls: estimate.calls,
    input_tokens: estimate.usage.input_tokens,
    output_tokens: estimate.usage.output_tokens,
  });
}

function sumLines(lines: readonly PriceLine[]): PriceLine {
  const sum = zero();
  for (const line of lines) addLine(sum, line);
  return sum;
}

const bare = ({ calls, input_tokens, output_tokens }: PriceLine): PriceLine => ({
  calls,
  input_tokens,
  output_tokens,
});

function costOf(line: PriceLine, p: ModelPrice): number {
  return (line.input_tokens * p.input_per_million + line.output_tokens * p.output_per_million) / 1_000_000;
}

/** A cost of several lines: their sum when each has one, none when any is unknown. */
function costField(lines: readonly PriceLine[]): { cost_usd?: number } {
  if (lines.some((l) => l.cost_usd === undefined)) return {};
  return { cost_usd: lines.reduce((n, l) => n + l.cost_usd!, 0) };
}

/** The people a run would be given (the first `size`), or undefined when the factory is to generate them. */
function peopleOf(
  population: PriceExperimentOptions["population"],
  scenario: Scenario,
): readonly ExperimentPerson[] | undefined {
  const source = population ?? scenario.population.folder;
  if (source === undefined) return undefined;
  const all = typeof source === "string" ? loadPopulation(source).people : source.people;
  const size = scenario.population.size;
  if (all.length < size)
    throw new InputError(
      `population: expected at least ${size} people (population.size of scenario ${scenario.id}), got ${all.length}`,
      typeof source === "string" ? { file: source } : { place: "population" },
    );
  return all.slice(0, size);
}

/** Stand-ins for people the factory has still to write: a persona of the assumed length each. */
function syntheticPeople(size: number): ExperimentPerson[] {
  const persona = filler(EXPERIMENT_PRICE_ASSUMPTIONS.persona_chars, "A person of the population: ");
  return Array.from({ length: size }, (_, i) => ({
    id: `person-${i + 1}`,
    name: `Person ${i + 1}`,
    persona,
  }));
}

const FILLER =
  "Here is one more thought from my own experience, with the reasons behind it and who it would help. ";

/** Plain prose of exactly `chars` characters. */
function filler(chars: number, start = ""): string {
  const text = start + FILLER.repeat(Math.ceil(chars / FILLER.length));
  return text.slice(0, chars);
}

/** One agent act of the synthetic world, with what it perceived and the message it sends. */
interface SyntheticAct {
  agent: ExperimentPerson;
  step: number;
  rapporteur: boolean;
  /** The agent's trajectory when it acts: everything it perceived and sent before, and this step's prompts. */
  memory: TrajectoryEvent[];
  /** Its messages before this act. */
  sentBefore: number;
  text: string;
  inputTokens: number;
  outputTokens: number;
}

interface SyntheticWorld {
  transcript: Transcript;
  acts: SyntheticAct[];
  rapporteur: ExperimentPerson;
}

/**
 * The environment as a run is expected to play it: the facilitator's intro and task, every member one
 * message a step, then the rapporteur's prompt and write-up — the transcript the judge reads, and each act
 * with the memory its prompt shows.
 */
function syntheticWorld(
  scenario: Scenario,
  environment: ScenarioEnvironment,
  members: readonly ExperimentPerson[],
): SyntheticWorld {
  const a = EXPERIMENT_PRICE_ASSUMPTIONS;
  const channel = scenario.channel;
  const start = Date.parse("2025-01-01T00:00:00.000Z");
  const rapporteur = members[environment.rapporteur - environment.members[0]!]!;
  const messages: Message[] = [];
  const stepOf = new Map<string, number>();
  const post = (step: number, sender: string, text: string) => {
    const id = `s${step}-${sender}-1`;
    stepOf.set(id, step);
    messages.push({
      id,
      sender,
      channel,
      text,
      at: new Date(start + messages.length * 1000).toISOString(),
    });
  };
  const texts = new Map<string, string>();
  const last = environment.world_steps + 1;
  for (let step = 1; step <= last; step++) {
    if (step === 1) post(step, FACILITATOR, environment.prompts.intro);
    if (step === 2) post(step, FACILITATOR, environment.prompts.task);
    if (step === last) post(step, FACILITATOR, environment.prompts.rapporteur);
    for (const m of step === last ? [rapporteur] : members) {
      const text = filler(step === last ? a.report_chars : a.message_chars, `${m.name}, step ${step}: `);
      texts.set(`${step}:${m.id}`, text);
      post(step, m.id, text);
    }
  }
  const transcript = parseTranscriptValue(
    {
      format: TRANSCRIPT_FORMAT,
      agents: members.map((m) => ({ id: m.id, name: m.name, persona: m.persona })),
      channels: [{ id: channel, members: members.map((m) => m.id) }],
      messages,
    },
    "the synthetic transcript",
  );
  const acts: SyntheticAct[] = [];
  for (const m of members) {
    const agent = { id: m.id, name: m.name, persona: m.persona };
    const events = agentTrajectory(transcript, m.id);
    const system = systemPrompt(agent, [channel]);
    for (let step = 1; step <= last; step++) {
      if (step === last && m.id !== rapporteur.id) continue;
      // What the agent knows when it acts: earlier steps, and this step's facilitator prompts.
      const memory = events.filter((e) => {
        const at = stepOf.get(e.message.id)!;
        return at < step || (at === step && e.message.sender === FACILITATOR);
      });
      const text = texts.get(`${step}:${m.id}`)!;
      acts.push({
        agent: m,
        step,
        rapporteur: step === last,
        memory,
        sentBefore: step - 1,
        text,
        inputTokens:
          tokens(system.length + actPrompt(agent, memory, EVALUATION_WINDOW_DEFAULTS, []).length) +
          a.tool_tokens,
        outputTokens: tokens(text.length) + a.tool_call_tokens,
      });
    }
  }
  return { transcript, acts, rapporteur };
}

/**
 * The persona dimensions' plan on the synthetic transcript, estimated as `eval --dry-run` estimates one,
 * with the scenario's judge settings laid over the built-in sets as the run lays them (double_check on every
 * set, hard adherence as the scenario says).
 */
async function personaEstimate(
  scenario: Scenario,
  transcript: Transcript,
  members: readonly ExperimentPerson[],
): Promise<PlanEstimate> {
  const dimensions = [...scenario.metrics.dimensions];
  const agents = members.map((m) => m.id);
  const base = await preparePersonaEvaluation({ transcript, dimensions, agents, source: "dry-run" });
  type Loaded = PreparedPersonaEvaluation["propositions"];
  const adjust = <S extends { dimension: string; hash: string; hard: boolean; double_check: boolean }>(
    set: S,
  ): S => {
    const hard = set.dimension === "adherence" ? scenario.metrics.hard_adherence : set.hard;
    const double_check = scenario.judge.double_check;
    return { ...set, hard, double_check, hash: contentHash({ base: set.hash, hard, double_check }) };
  };
  const propositions: Loaded = {
    ...base.propositions,
    sets: {
      agent: new Map(
        [...base.propositions.sets.agent].map(([id, sets]) => [
          id,
          new Map([...sets].map(([d, s]) => [d, adjust(s)])),
        ]),
      ),
      environment: new Map([...base.propositions.sets.environment].map(([d, s]) => [d, adjust(s)])),
    },
  };
  const prepared = await preparePersonaEvaluation({
    transcript,
    dimensions,
    agents,
    source: "dry-run",
    mode: scenario.judge.mode,
    propositions,
  });
  return estimatePlan(prepared.plan);
}

/**
 * Judge requests of the run's own (extraction, task completion, the gate, interventions) go through the
 * persona estimate unchanged: `estimatePlan` reads a plan's calls only, so they are given as a plan of
 * just those calls.
 */
function estimateRequests(requests: readonly JudgeRequest[]): PlanEstimate {
  const calls = requests.map((r) => ({
    items: r.items,
    doubleCheck: r.doubleCheck ?? false,
    context: () => r.context,
    meta: [],
  }));
  return estimatePlan({ calls: () => calls, trivial: () => [] } as unknown as EvaluationPlan);
}

const GATE_ENABLED = {
  adherence: "gate_adherence_enabled",
  consistency: "gate_consistency_enabled",
  fluency: "gate_fluency_enabled",
  suitability: "gate_suitability_enabled",
} as const satisfies Record<GateDimension, keyof CorrectionSettings>;

/** The gate an arm's settings make: the dimensions it judges, and whether it checks at all (similarity alone redrafts too). */
function gateOf(config: CorrectionSettings): { dimensions: GateDimension[]; enabled: boolean } {
  const dimensions = GATE_DIMENSIONS.filter((d) => config[GATE_ENABLED[d]]);
  return { dimensions, enabled: dimensions.length > 0 || config.gate_similarity_enabled };
}

/** One gate attempt's requests on one dimension: up to 10 claims each (none for a first message's consistency). */
function gateRequests(set: GatePropositionSet, act: SyntheticAct): JudgeRequest[] {
  const own = set.dimension === "consistency" || set.dimension === "fluency";
  const events = own ? act.memory.filter((e) => e.kind === "action") : act.memory;
  if (set.dimension === "consistency" && events.length === 0) return [];
  const { agent } = act;
  const context: JudgeRequest["context"] = {
    ...(set.include_personas ? { persona: { name: agent.name, text: renderPersona(agent) } } : {}),
    trajectory: {
      title: `${agent.name}'s ${own ? "earlier messages" : "trajectory before the message under evaluation"}`,
      text: renderTrajectory(events, ACTION_LEVEL_WINDOW_DEFAULTS, { name: agent.name }),
    },
    action: { name: agent.name, text: act.text },
  };
  const requests: JudgeRequest[] = [];
  for (let i = 0; i < set.propositions.length; i += MAX_BATCH_SIZE)
    requests.push({
      items: set.propositions.slice(i, i + MAX_BATCH_SIZE).map((p) => ({
        key: { dimension: set.dimension, proposition_id: p.id, agent_id: agent.id, trial: 1 },
        kind: "score" as const,
        claim: p.claim,
      })),
      context,
      doubleCheck: set.double_check,
    });
  return requests;
}

/** An intervention's textual precondition, checked on the agent's trajectory before its act. */
function interventionRequest(name: string, claim: string, act: SyntheticAct): JudgeRequest {
  const { agent } = act;
  // The step's own prompts arrive after the interventions are checked.
  const before = act.memory.filter(
    (e) => e.message.sender !== FACILITATOR || !e.message.id.startsWith(`s${act.step}-`),
  );
  return {
    items: [
      {
        key: { dimension: INTERVENTION_DIMENSION, proposition_id: name, agent_id: agent.id, trial: 1 },
        kind: "check",
        claim: claim.replaceAll("{{agent_name}}", agent.name),
      },
    ],
    context: {
      trajectory: {
        title: `the trajectory of ${agent.name}`,
        text: renderTrajectory(before, EVALUATION_WINDOW_DEFAULTS, { name: agent.name }),
      },
    },
    doubleCheck: false,
  };
}

/** The population factory's calls: the dimensions, one plan a segment, one persona a person (renames aside). */
function populationEstimate(scenario: Scenario): PriceLine {
  const a = EXPERIMENT_PRICE_ASSUMPTIONS;
  const profile = resolvePopulationProfile(scenario.population.profile!);
  const first = dimensionsPrompt(profile);
  const prompt = tokens(first.system.length + first.user.length);
  const size = scenario.population.size;
  const segments = Math.min(profile.segments.length, size);
  const out = a.population_output_tokens;
  const context = a.population_context_chars;
  return {
    calls: 1 + segments + size,
    input_tokens:
      prompt +
      segments * (prompt + tokens(context.dimensions)) +
      size * (prompt + tokens(context.characteristics)),
    output_tokens: out.dimensions + segments * out.plan + size * out.persona,
  };
}

const JUDGE_PART_NAMES: Record<keyof JudgePriceParts, string> = {
  personas: "persona dimensions",
  extraction: "extraction",
  task_completion: "task completion",
  gate: "action gate",
  interventions: "interventions",
};

/** 1234567 → `1,234,567`, the same on every machine. */
function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function priceRow(name: string, line: PriceLine): string {
  const cost = line.cost_usd === undefined ? "?" : `$${line.cost_usd.toFixed(4)}`;
  return `${name.padEnd(24)}${grouped(line.calls).padStart(9)}${grouped(line.input_tokens).padStart(16)}${grouped(line.output_tokens).padStart(15)}${cost.padStart(12)}`;
}

/** Dry runs for a terminal: per experiment and arm, the agents' and the judge's calls, tokens and cost. */
export function renderExperimentPrices(prices: readonly ExperimentPrice[]): string {
  const lines: string[] = [];
  for (const price of prices) {
    const s = price.scenario;
    lines.push(
      `Dry run · experiment ${s.id} at scale ${s.scale} · nothing was called or written`,
      `${s.environments} environments an arm · ${s.agents} agents in groups of ${s.group_size} · ${s.steps} steps · agents ${price.models.agents} · judge ${price.models.judge}`,
      "",
      `${"".padEnd(24)}${"calls".padStart(9)}${"input tokens".padStart(16)}${"output tokens".padStart(15)}${"cost".padStart(12)}`,
    );
    for (const [arm, p] of Object.entries(price.arms)) {
      lines.push(`${arm} (${p.label})${p.upper_bound ? " · at most: the gate may redraft less" : ""}`);
      lines.push(priceRow("  agents", p.agent), priceRow("  judge", p.judge));
      for (const [part, line] of Object.entries(p.judge.parts) as [keyof JudgePriceParts, PriceLine][])
        if (line.calls > 0) lines.push(priceRow(`    ${JUDGE_PART_NAMES[part]}`, line));
    }
    if (price.population) {
      lines.push(`population (the factory writes ${price.population.generated} people, agents' model)`);
      lines.push(priceRow("  agents", price.population));
    }
    lines.push(
      "total",
      priceRow("  agents", price.total.agent),
      priceRow("  judge", price.total.judge),
      `estimated cost: ${price.total.cost_usd === undefined ? "unknown" : `$${price.total.cost_usd.toFixed(4)}`}`,
    );
    for (const [who, spec] of [
      ["agents", price.models.agents],
      ["judge", price.models.judge],
    ] as const)
      if (price.prices[who] === null)
        lines.push(`  no price for ${spec}: add one under prices: in dramaturg.yaml`);
    if (price.models.judge.startsWith("fixtures:")) lines.push("fixture judge: no judge model calls");
    lines.push("");
  }
  if (prices.length > 1) {
    const agent = sumLines(prices.map((p) => bare(p.total.agent)));
    const judge = sumLines(prices.map((p) => bare(p.total.judge)));
    const costs = prices.map((p) => p.total.cost_usd);
    lines.push(
      `all ${prices.length} experiments`,
      priceRow("  agents", { ...agent, ...costField([...prices.map((p) => p.total.agent)]) }),
      priceRow("  judge", { ...judge, ...costField([...prices.map((p) => p.total.judge)]) }),
      `estimated cost: ${costs.some((c) => c === undefined) ? "unknown" : `$${costs.reduce((n, c) => n! + c!, 0)!.toFixed(4)}`}`,
      "",
    );
  }
  lines.push(
    `Estimated from the prompts a run sends, with ${EXPERIMENT_PRICE_ASSUMPTIONS.messages_per_act} message an act of about ${EXPERIMENT_PRICE_ASSUMPTIONS.message_chars} characters.`,
  );
  return `${lines.join("\n")}\n`;
}
