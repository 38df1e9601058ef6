// Runtime corrections on the agents of a simulated world: one action gate per agent (from that agent's
// settings) behind the world's beforeCommit hook, repetition suppression behind its beforeAct hook, and the
// gate's logs written to a sink or, in batches, to a store's `correction_logs`.
import {
  CORRECTION_OUTCOMES,
  type CorrectionOutcome,
  type CorrectionSettings,
  GATE_DIMENSIONS,
  type TrajectoryEvent,
  type WorldCorrectionsSummary,
} from "../core/index.ts";
import type { Judge } from "../judge/index.ts";
import type { BeforeAct, BeforeCommit } from "../sim/index.ts";
import type { Store } from "../store/index.ts";
import { type ActionGate, ActionRejectedError, createActionGate } from "./action-gate.ts";
import type { CorrectionLogSink, GateLogEntry } from "./correction-log.ts";
import { type GatePropositionSets, gatePropositionSetsFor } from "./gate-propositions.ts";
import type { GateHistoryEntry } from "./judge-dimension.ts";
import { RECENT_MESSAGES, repetitionCheck } from "./similarity.ts";

export interface WorldCorrectionsOptions {
  /** Judges the gate's dimensions; needed when an agent's settings turn one on. */
  judge?: Judge;
  /** An agent's settings (missing keys take the defaults, which turn everything off). Wins over `configs`. */
  configFor?: (agentId: string) => Partial<CorrectionSettings> | undefined;
  /** Settings by agent id; an agent not listed has everything off. */
  configs?: Readonly<Record<string, Partial<CorrectionSettings>>>;
  /** The gate's proposition sets by dimension; the built-in ones for those left out. */
  propositions?: GatePropositionSets;
  /**
   * Where each check's entry goes: a sink (called per check), or a store, whose `correction_logs` receive
   * the entries in one batch per {@link WorldCorrections.flush} (the world flushes at the end of each step).
   */
  log?: CorrectionLogSink | Pick<Store, "corrections">;
  /** The run (simulation) the checked messages belong to, written to each entry. */
  runId?: string;
  /** Per-dimension judge deadline in ms (fail-open). Default 5,000. */
  timeoutMs?: number;
}

export interface WorldCorrections {
  /** The world's beforeCommit hook: the agent's gate checks (and regenerates) each drafted message. */
  beforeCommit: BeforeCommit;
  /** The world's beforeAct hook: the repetition-suppression thought, when the agent repeats itself. */
  beforeAct: BeforeAct;
  /** Every check's entry so far, oldest first. */
  readonly checks: readonly GateLogEntry[];
  summary(): WorldCorrectionsSummary;
  /** Writes the entries not yet stored to the store (nothing to do with a sink or no log). */
  flush(): Promise<void>;
}

/** The gate's history from an agent's memory: its own messages have no `from`; what it perceived names the speaker. */
export function gateHistory(memory: readonly TrajectoryEvent[]): GateHistoryEntry[] {
  return memory.map((e) =>
    e.kind === "action" ? { text: e.message.text } : { text: e.message.text, from: e.senderName },
  );
}

/** The hooks that put the action gate and repetition suppression on a world's agents. */
export function worldCorrections({
  judge,
  configFor,
  configs = {},
  propositions,
  log,
  runId,
  timeoutMs,
}: WorldCorrectionsOptions = {}): WorldCorrections {
  const settingsOf = (agentId: string) => configFor?.(agentId) ?? configs[agentId] ?? {};
  const checks: GateLogEntry[] = [];
  const unstored: GateLogEntry[] = [];
  const store = log !== undefined && typeof log !== "function" ? log : undefined;
  const sink = typeof log === "function" ? log : undefined;
  const gates = new Map<string, ActionGate>();
  // A gate is made at its agent's first message, so the sets it judges with are read here, before any:
  // reading them then would count against that message's deadline. Without a judge no dimension is on.
  const sets = judge ? gatePropositionSetsFor(GATE_DIMENSIONS, propositions) : propositions;
  let rejected = 0;
  let repetitionWarnings = 0;

  const record: CorrectionLogSink = async (entry) => {
    checks.push(entry);
    if (store) unstored.push(entry);
    else await sink?.(entry);
  };
  // One gate per agent, made at its first message: a gate reads its settings once.
  const gateOf = (agentId: string) => {
    let gate = gates.get(agentId);
    if (!gate) {
      gate = createActionGate({
        judge,
        config: settingsOf(agentId),
        propositions: sets,
        timeoutMs,
        runId,
        log: record,
      });
      gates.set(agentId, gate);
    }
    return gate;
  };

  return {
    async beforeCommit({ agent, text, history, regenerate }) {
      const gate = gateOf(agent.id);
      if (!gate.enabled) return text;
      try {
        const result = await gate.check({
          agent,
          tentativeText: text,
          history: gateHistory(history),
          regenerate: (feedback, attempt) => regenerate(feedback.text, attempt),
        });
        return result.text;
      } catch (error) {
        // continue_on_failure off: the message is not sent (the gate has logged the check as rejected).
        if (!ActionRejectedError.isInstance(error)) throw error;
        rejected++;
        return null;
      }
    },
    beforeAct(persona) {
      const settings = settingsOf(persona.agent.id);
      if (!settings.repetition_suppression_enabled) return undefined;
      const recent = persona.memory
        .filter((e) => e.kind === "action")
        .slice(-RECENT_MESSAGES)
        .map((e) => e.message.text);
      const check = repetitionCheck(recent, { threshold: settings.repetition_threshold });
      if (check.injection === null) return undefined;
      repetitionWarnings++;
      return check.injection;
    },
    get checks() {
      return checks;
    },
    summary() {
      const outcomes = Object.fromEntries(CORRECTION_OUTCOMES.map((o) => [o, 0])) as Record<
        CorrectionOutcome,
        number
      >;
      for (const entry of checks) outcomes[entry.outcome]++;
      return { checks: checks.length, outcomes, rejected, repetitionWarnings };
    },
    async flush() {
      if (!store || unstored.length === 0) return;
      await store.corrections.add(unstored.splice(0));
    },
  };
}
