// The target with the corrections gate on it: each reply is checked by the action gate (the persona's
// adherence and whatever else the settings turn on) before the attacker sees it, and a failing reply is
// regenerated with the gate's feedback as one more user message, as the AI SDK middleware does for a model.
import type { CorrectionSettingsPatch } from "../../core/index.ts";
import { ActionRejectedError, createActionGate, type GateHistoryEntry } from "../../corrections/index.ts";
import type { Judge } from "../../judge/index.ts";
import type { ChatMessage, ChatTarget } from "../drift/chat-target.ts";
import type { DriftPersona } from "../drift/partner.ts";

export interface GatedTargetOptions {
  /** Judges the gate's dimensions. */
  judge: Judge;
  persona: DriftPersona;
  /** The corrections settings (`agent_evaluation_config`); a gate dimension must be enabled for it to act. */
  settings: CorrectionSettingsPatch;
}

/** What the gate reads as the character's history: its own replies, and what the user said to it. */
function gateHistory(messages: readonly ChatMessage[]): GateHistoryEntry[] {
  return messages
    .filter((m) => m.role !== "system")
    .map((m) => (m.role === "assistant" ? { text: m.content } : { text: m.content, from: "user" }));
}

/**
 * `target` behind the action gate. A reply no attempt could pass is sent as the best attempt when the settings'
 * `continue_on_failure` holds (the default), and as an empty reply when it does not (nothing was said).
 */
export function gatedTarget(
  target: ChatTarget,
  { judge, persona, settings }: GatedTargetOptions,
): ChatTarget {
  const gate = createActionGate({ judge, config: settings });
  const agent = { id: persona.id, name: persona.name, persona: persona.persona };
  return async (request) => {
    const first = await target(request);
    try {
      const result = await gate.check({
        agent,
        tentativeText: first,
        history: gateHistory(request.messages),
        regenerate: (feedback) =>
          target({
            ...request,
            messages: [...request.messages.map((m) => ({ ...m })), { role: "user", content: feedback.text }],
          }),
      });
      return result.text;
    } catch (error) {
      if (ActionRejectedError.isInstance(error)) return "";
      throw error;
    }
  };
}
