// The step-based world (TinyTroupe's `TinyWorld._step`, plus the seed's facilitator prompts): each step
// checks interventions once, posts facilitator prompts, then lets agents act; the result is a transcript.
import type { LanguageModel } from "ai";
import {
  addUsage,
  correctionSettingsOf,
  type Message,
  parseTranscriptValue,
  seededRandom,
  type TokenUsage,
  TRANSCRIPT_FORMAT,
  type Transcript,
  ZERO_USAGE,
} from "../core/index.ts";
import type { Judge } from "../judge/index.ts";
import { builtinInterventionsFor } from "./builtin-interventions.ts";
import type { Intervention, InterventionBatch } from "./intervention.ts";
import {
  type BeforeCommit,
  createPersonaAgent,
  type MessageDraft,
  type PersonaAgent,
} from "./persona-agent.ts";
import { facilitatorPostsAt, type WorldAgent, type WorldFile, worldAgentChannels } from "./world-file.ts";

/** A per-act hook: a thought for this act, or undefined for none. */
export type BeforeAct = (
  agent: PersonaAgent,
  step: number,
) => string | undefined | Promise<string | undefined>;

export type InterventionList = ReadonlyArray<Intervention<PersonaAgent> | InterventionBatch<PersonaAgent>>;

export interface CreateWorldOptions {
  /** The agents' model, or a model per agent. */
  model: LanguageModel | ((agent: WorldAgent) => LanguageModel);
  /** Judges the interventions' textual and propositional preconditions. */
  judge?: Judge;
  /** Interventions checked at every step, in this order, after the built-ins; a function receives the agents. */
  interventions?: InterventionList | ((agents: readonly PersonaAgent[]) => InterventionList);
  /** Add the built-in anti-convergence and variety interventions the agents' corrections enable. Default true. */
  builtinInterventions?: boolean;
  /** The action gate's hook, for every agent. */
  beforeCommit?: BeforeCommit;
  /** Runs before each act; a text it returns is a transient thought for that act only (repetition suppression). */
  beforeAct?: BeforeAct;
  /** Awaited at the end of each step, after its messages are committed (e.g. to flush logs). */
  afterStep?: (step: number) => void | Promise<void>;
  /** Called for every committed message (facilitator prompts included), in transcript order. */
  onMessage?: (message: Message, step: number) => void;
  temperature?: number;
}

/** One intervention that fired. */
export interface FiredIntervention {
  step: number;
  name: string;
  agent_ids: string[];
}

export interface WorldStats {
  steps: number;
  /** Committed messages of agents (facilitator prompts not counted). */
  messages: number;
  /** Drafts the gate dropped or that named a channel the agent is not in. */
  dropped: number;
  /** Agent model calls (redrafts the gate asked for included) and their tokens. */
  agentCalls: number;
  agentUsage: TokenUsage;
  /** Judge calls of intervention preconditions and their tokens. */
  judgeCalls: number;
  judgeUsage: TokenUsage;
  fired: FiredIntervention[];
}

export interface WorldRunResult {
  transcript: Transcript;
  stats: WorldStats;
}

export interface World {
  readonly file: WorldFile;
  readonly agents: readonly PersonaAgent[];
  /** Steps run so far. */
  readonly step: number;
  readonly messages: readonly Message[];
  /** Runs `steps` more steps (default: the file's `steps`) and returns the transcript of everything so far. */
  run(options?: { steps?: number; signal?: AbortSignal }): Promise<WorldRunResult>;
  /** The transcript so far, validated as `dramaturg.transcript/v1`. */
  transcript(): Transcript;
}

const SLOT_MS = 1000;

/** `provider:model` of an AI SDK model object (a string id is kept as it is); nothing for a mock. */
function modelOf(model: LanguageModel): { model?: string } {
  if (typeof model === "string") return { model };
  const { provider, modelId } = model as { provider?: unknown; modelId?: unknown };
  if (typeof modelId !== "string" || modelId === "" || typeof provider !== "string") return {};
  if (provider.startsWith("mock")) return {};
  return { model: `${provider.split(".")[0]}:${modelId}` };
}

/** Builds a world from a parsed world file. Nothing runs until `run()`. */
export function createWorld(
  file: WorldFile,
  {
    model,
    judge,
    interventions = [],
    builtinInterventions = true,
    beforeCommit,
    beforeAct,
    afterStep,
    onMessage,
    temperature,
  }: CreateWorldOptions,
): World {
  const names = new Map(file.agents.map((a) => [a.id, a.name]));
  const models = file.agents.map((a) => (typeof model === "function" ? model(a) : model));
  const agents = file.agents.map((a, i) =>
    createPersonaAgent({
      agent: { id: a.id, name: a.name, persona: a.persona },
      channels: worldAgentChannels(file, a.id),
      model: models[i]!,
      // The agent's keys over the defaults: whole settings (an experiment arm's, or a world file's that
      // simulateWithCorrections has laid over the stored and project settings) come through unchanged.
      corrections: a.corrections && correctionSettingsOf(a.corrections),
      nudges: a.nudges,
      beforeCommit,
      temperature,
      nameOf: (sender) => names.get(sender) ?? sender,
    }),
  );
  const given = typeof interventions === "function" ? interventions(agents) : interventions;
  const checks: Intervention<PersonaAgent>[] = [
    ...(builtinInterventions ? agents.flatMap((a) => builtinInterventionsFor(a)) : []),
    ...given.flatMap((i) => ("asList" in i ? i.asList() : [i])),
  ];
  const random = seededRandom(file.seed);
  const start = Date.parse(file.start);
  // Every message time follows from (step, slot, index), so a rerun gives the same transcript.
  const stepMs = Math.max(60_000, (agents.length + 2) * SLOT_MS);
  const messages: Message[] = [];
  const seen = new Map(agents.map((a) => [a.agent.id, 0]));
  const stats: WorldStats = {
    steps: 0,
    messages: 0,
    dropped: 0,
    agentCalls: 0,
    agentUsage: ZERO_USAGE,
    judgeCalls: 0,
    judgeUsage: ZERO_USAGE,
    fired: [],
  };

  const commit = (message: Message, step: number) => {
    messages.push(message);
    onMessage?.(message, step);
  };

  /** The messages an agent has not perceived yet, up to `end`, in its channels and not its own. */
  const stimuliFor = (agent: PersonaAgent, end: number): Message[] => {
    const from = seen.get(agent.agent.id)!;
    seen.set(agent.agent.id, end);
    return messages
      .slice(from, end)
      .filter((m) => m.sender !== agent.agent.id && agent.channels.includes(m.channel));
  };

  const act = async (agent: PersonaAgent, step: number, slot: number, end: number, signal?: AbortSignal) => {
    const base = start + (step - 1) * stepMs + (slot + 1) * SLOT_MS;
    const stamp = (draft: MessageDraft, index: number): Message => ({
      id: `s${step}-${agent.agent.id}-${index + 1}`,
      sender: agent.agent.id,
      channel: draft.channel,
      text: draft.text,
      at: new Date(base + index).toISOString(),
    });
    const stimuli = stimuliFor(agent, end);
    const thought = await beforeAct?.(agent, step);
    const result = await agent.act({ step, stimuli, thoughts: thought ? [thought] : [], stamp, signal });
    stats.agentCalls += result.calls;
    stats.agentUsage = addUsage(stats.agentUsage, result.usage);
    stats.dropped += result.dropped;
    stats.messages += result.sent.length;
    return result.sent;
  };

  const runStep = async (step: number, signal?: AbortSignal) => {
    // (a) Interventions, one after another: an earlier one's effect is visible to later preconditions.
    for (const intervention of checks) {
      const fired = await intervention.execute({ step, judge, signal });
      const check = intervention.lastCheck;
      if (check) {
        stats.judgeCalls += check.calls;
        stats.judgeUsage = addUsage(stats.judgeUsage, check.usage);
      }
      if (fired)
        stats.fired.push({
          step,
          name: intervention.name,
          agent_ids: intervention.targets.map((t) => t.agent.id),
        });
    }
    // (b) Facilitator prompts.
    const stepStart = start + (step - 1) * stepMs;
    file.facilitator
      .filter((f) => facilitatorPostsAt(f, step))
      .forEach((f, i) => {
        commit(
          {
            id: `s${step}-${f.from}-${i + 1}`,
            sender: f.from,
            channel: f.channel,
            text: f.text,
            at: new Date(stepStart + i).toISOString(),
          },
          step,
        );
      });
    // (c) Agents act.
    if (file.order === "parallel") {
      // Everyone acts on the state before the step; messages are committed afterwards in agent order.
      const end = messages.length;
      const sent = await Promise.all(agents.map((a, slot) => act(a, step, slot, end, signal)));
      for (const list of sent) for (const m of list) commit(m, step);
    } else {
      // A seeded shuffle each step; each agent hears those who spoke before it in the same step.
      const order = shuffle(agents, random);
      for (const [slot, agent] of order.entries()) {
        const sent = await act(agent, step, slot, messages.length, signal);
        for (const m of sent) commit(m, step);
      }
    }
    stats.steps = step;
    await afterStep?.(step);
  };

  const transcript = (): Transcript =>
    parseTranscriptValue(
      {
        format: TRANSCRIPT_FORMAT,
        // The model each agent spoke with, when the model names itself: a calibration warns of self-preference.
        agents: agents.map((a, i) => ({ ...a.agent, ...modelOf(models[i]!) })),
        channels: file.channels.map((c) => ({
          id: c.id,
          members: agents.filter((a) => a.channels.includes(c.id)).map((a) => a.agent.id),
        })),
        messages,
      },
      "the simulated transcript",
    );

  return {
    file,
    agents,
    get step() {
      return stats.steps;
    },
    messages,
    async run({ steps = file.steps, signal } = {}) {
      const first = stats.steps + 1;
      for (let step = first; step < first + steps; step++) {
        signal?.throwIfAborted();
        await runStep(step, signal);
      }
      return { transcript: transcript(), stats: { ...stats, fired: [...stats.fired] } };
    },
    transcript,
  };
}

/** Fisher–Yates on a copy, with the world's seeded generator. */
function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}
