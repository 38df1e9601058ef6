// The gate around any `sendMessage(text)` function: the text is checked (and regenerated when a
// `regenerate` is given) before `send` sees it, and `send` gets the committed text.
import type { Agent } from "../core/index.ts";
import {
  type ActionGate,
  type ActionGateOptions,
  createActionGate,
  type GateCheckResult,
  type Regenerate,
} from "./action-gate.ts";
import type { GateHistoryEntry } from "./judge-dimension.ts";

export interface WithActionGateOptions {
  /** A gate, or the options to create one. */
  gate: ActionGate | ActionGateOptions;
  /** The agent whose messages are sent. */
  agent: Agent;
  /**
   * What the agent saw and sent before, oldest first, read before each check. Default: the messages
   * committed through this wrapper (so consistency and similarity see the agent's own earlier messages).
   */
  history?: () => readonly GateHistoryEntry[] | Promise<readonly GateHistoryEntry[]>;
  /** Writes a new attempt from the feedback; without it a failing message is committed as it is. */
  regenerate?: Regenerate;
  /** Called with every check's result, before `send`. */
  onCheck?: (result: GateCheckResult) => void;
}

/** Wraps `send` so that every text passes the action gate first; `send` receives the committed text. */
export function withActionGate<R>(
  send: (text: string) => R | Promise<R>,
  { gate, agent, history, regenerate, onCheck }: WithActionGateOptions,
): (text: string) => Promise<R> {
  const actionGate = isGate(gate) ? gate : createActionGate(gate);
  const sent: GateHistoryEntry[] = [];
  return async (text) => {
    const result = await actionGate.check({
      agent,
      tentativeText: text,
      history: history ? await history() : sent,
      regenerate,
    });
    onCheck?.(result);
    const value = await send(result.text);
    sent.push({ text: result.text });
    return value;
  };
}

export function isGate(gate: ActionGate | ActionGateOptions): gate is ActionGate {
  return typeof (gate as ActionGate).check === "function";
}
