// An AI SDK mock model for persona agents: each call answers with the `send_message` tool calls a script
// returns for the agent's system and user prompt. It records every prompt it was given.
import { MockLanguageModelV4 } from "ai/test";

export interface AgentCall {
  system: string;
  prompt: string;
}

export type AgentScript = (call: AgentCall, index: number) => Array<{ channel: string; text: string }>;

export function scriptedAgentModel(script: AgentScript): MockLanguageModelV4 & { prompts: AgentCall[] } {
  const prompts: AgentCall[] = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      const text = (role: string) =>
        options.prompt
          .filter((m) => m.role === role)
          .map((m) =>
            typeof m.content === "string"
              ? m.content
              : m.content.map((p) => ("text" in p ? (p as { text: string }).text : "")).join(""),
          )
          .join("\n");
      const call = { system: text("system"), prompt: text("user") };
      const index = prompts.length;
      prompts.push(call);
      return {
        content: script(call, index).map((m, i) => ({
          type: "tool-call" as const,
          toolCallId: `call-${index}-${i}`,
          toolName: "send_message",
          input: JSON.stringify(m),
        })),
        finishReason: { unified: "tool-calls", raw: undefined },
        usage: {
          inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 5, text: 5, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
  return Object.assign(model, { prompts });
}

/** The agent's name as its system prompt states it (`You are NAME.`). */
export function speaker(call: AgentCall): string {
  return /^You are ([^.]+)\./.exec(call.system)?.[1] ?? "?";
}
