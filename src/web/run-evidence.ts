// The evidence behind a persona run's verdicts, as the run and comparison pages show it: each proposition's
// claim (the result document, else the proposition sets kept with the input), the judged messages with their
// speakers (the transcript kept with the input, else the store's imported messages) and the trajectory window
// the judge read for each target, rebuilt by planning the evaluation again from its stored input (no judge
// call, no file read). Whatever is not kept is left out, and the pages say so.
import { z } from "zod";
import { renderTemplate } from "../core/index.ts";
import { PersonaRunConfigSchema, parseStoredPersonaInput, planFor } from "../personas/index.ts";
import type { RunRow, ScoreRow, Store } from "../store/index.ts";

export interface JudgedMessage {
  id: string;
  sender: string;
  /** The sender's display name (its id when the transcript names no agent by it). */
  speaker: string;
  channel: string;
  recipient?: string;
  text: string;
}

export interface PropositionFacts {
  /** The claim with the agent's name filled in. */
  claim: string;
  weight?: number;
  inverted?: boolean;
  hard?: boolean;
}

/** What the judge read besides the claim: its title ("Dov's trajectory before…"), its lines and text, the judged message. */
export interface JudgeWindow {
  title: string;
  text: string;
  /** The window's lines, oldest first (the text is them joined). */
  lines?: readonly string[];
  /** The message under evaluation as the judge was shown it, in a block of its own; absent for a whole-agent target. */
  action?: { name: string; text: string };
}

export interface RunEvidence {
  /** The run's agent's display name. */
  agentName: string;
  messages: ReadonlyMap<string, JudgedMessage>;
  /** By {@link propositionKey}. */
  propositions: ReadonlyMap<string, PropositionFacts>;
  /** By {@link windowKey}; absent for a verdict given without a judge call, or when the input is not kept. */
  windows: ReadonlyMap<string, JudgeWindow>;
  /** Where the messages came from: the evaluation's kept input, the store's imported messages, or nowhere. */
  messagesFrom: "input" | "store" | "none";
  /** Whether the windows can be rebuilt (the evaluation's input and configuration are kept), asked for or not. */
  windowsKept: boolean;
}

export const propositionKey = (dimension: string, proposition: string) => `${dimension}/${proposition}`;

/** A judge window is shared by every proposition of a dimension on one target (a message, or the agent). */
export const windowKey = (row: Pick<ScoreRow, "dimension" | "message_id">) =>
  `${row.dimension}\u0000${row.message_id ?? ""}`;

// Read leniently: only the fields shown, so a document of another version shows what it can.
const PropositionShape = z.object({
  id: z.string(),
  claim: z.string(),
  weight: z.number().optional(),
  inverted: z.boolean().optional(),
  hard: z.boolean().optional(),
});
const ResultShape = z.object({
  runs: z.array(
    z.object({
      run_id: z.string(),
      name: z.string().optional(),
      dimensions: z.record(
        z.string(),
        z.object({ propositions: z.array(PropositionShape).optional() }).optional(),
      ),
    }),
  ),
});
const InputShape = z.object({
  transcript: z
    .object({
      agents: z.array(z.object({ id: z.string(), name: z.string() })),
      messages: z.array(
        z.object({
          id: z.string(),
          sender: z.string(),
          channel: z.string(),
          recipient: z.string().optional(),
          text: z.string(),
        }),
      ),
    })
    .optional(),
  propositions: z
    .object({
      agent: z.record(
        z.string(),
        z.record(
          z.string(),
          z.object({ hard: z.boolean().optional(), propositions: z.array(PropositionShape) }).optional(),
        ),
      ),
    })
    .optional(),
});

/**
 * The evidence of one run's verdicts: the windows of the given verdicts' targets only, and none with
 * `windows: false` (the comparison shows messages, not windows, and so skips planning the evaluation again).
 * `input` is the evaluation's stored input when the caller has read it already (read here otherwise).
 */
export async function runEvidence(
  store: Store,
  run: RunRow,
  scores: readonly ScoreRow[],
  { windows = true, input: given }: { windows?: boolean; input?: unknown } = {},
): Promise<RunEvidence> {
  const evaluationId = run.evaluation_id;
  const [evaluation, inputDoc, resultDoc] = evaluationId
    ? await Promise.all([
        store.evaluations.get(evaluationId),
        given ?? store.evaluations.input(evaluationId),
        store.evaluations.result(evaluationId),
      ])
    : [undefined, undefined, undefined];
  const input = InputShape.safeParse(inputDoc).data;
  const result = ResultShape.safeParse(resultDoc).data?.runs.find((r) => r.run_id === run.id);
  const names = new Map((input?.transcript?.agents ?? []).map((a) => [a.id, a.name]));
  if (!names.has(run.agent_id)) {
    const agent = await store.agents.get(run.agent_id);
    names.set(run.agent_id, result?.name ?? agent?.name ?? run.agent_id);
  }
  const agentName = names.get(run.agent_id)!;

  const propositions = new Map<string, PropositionFacts>();
  const fill = (claim: string) => renderTemplate(claim, { agent_name: agentName });
  for (const [dimension, sets] of Object.entries(input?.propositions?.agent[run.agent_id] ?? {}))
    for (const p of sets?.propositions ?? [])
      propositions.set(propositionKey(dimension, p.id), {
        claim: fill(p.claim),
        weight: p.weight,
        inverted: p.inverted,
        hard: sets?.hard,
      });
  // The result document's, where kept, are what the run was scored with.
  for (const [dimension, d] of Object.entries(result?.dimensions ?? {}))
    for (const p of d?.propositions ?? [])
      propositions.set(propositionKey(dimension, p.id), { ...p, claim: fill(p.claim) });

  const messages = new Map<string, JudgedMessage>();
  let messagesFrom: RunEvidence["messagesFrom"] = "none";
  if (input?.transcript) {
    messagesFrom = "input";
    for (const m of input.transcript.messages)
      messages.set(m.id, { ...m, speaker: names.get(m.sender) ?? m.sender });
  } else {
    const stored = await store.messages.query({
      agent: run.agent_id,
      from: run.window_start ?? undefined,
      to: run.window_end ?? undefined,
      limit: 5_000,
    });
    if (stored.length > 0) messagesFrom = "store";
    for (const m of stored) messages.set(m.id, { ...m, speaker: names.get(m.sender) ?? m.sender });
  }

  return {
    agentName,
    messages,
    propositions,
    windows: windows ? judgeWindows(run, scores, evaluation?.config, inputDoc) : new Map(),
    messagesFrom,
    windowsKept: inputDoc !== undefined && PersonaRunConfigSchema.safeParse(evaluation?.config).success,
  };
}

/**
 * The windows the judge read for the given verdicts' targets: the evaluation planned again from its kept
 * input and configuration, and the context of each call on one of these targets built (planning builds no
 * context until asked, so the cost is the targets shown). None when the input or configuration is not kept.
 */
function judgeWindows(
  run: RunRow,
  scores: readonly ScoreRow[],
  config: unknown,
  inputDoc: unknown,
): Map<string, JudgeWindow> {
  const windows = new Map<string, JudgeWindow>();
  const wanted = new Set(scores.filter((s) => s.agent_id === run.agent_id).map(windowKey));
  if (wanted.size === 0) return windows;
  const parsedConfig = PersonaRunConfigSchema.safeParse(config);
  if (!parsedConfig.success) return windows;
  try {
    const kept = parseStoredPersonaInput(inputDoc);
    if (!kept) return windows;
    const plan = planFor({ ...kept, config: parsedConfig.data });
    for (const call of plan.calls()) {
      const meta = call.meta[0];
      if (meta?.agentId !== run.agent_id) continue;
      const key = windowKey({ dimension: meta.dimension, message_id: meta.messageId ?? null });
      if (!wanted.has(key) || windows.has(key)) continue;
      const { trajectory, action } = call.context();
      const lines = trajectory.lines ?? (trajectory.text ? trajectory.text.split("\n") : []);
      windows.set(key, {
        title: trajectory.title,
        text: trajectory.text,
        lines,
        ...(action ? { action } : {}),
      });
      if (windows.size === wanted.size) break;
    }
  } catch {
    // An input kept by another version: the page shows the verdicts without their windows.
  }
  return windows;
}
