// What a drift run talks to: a chat function over a whole message history, so that the run keeps the
// history and can fork it. Adapters: the OpenAI-compatible agent client `converse` uses, an AI SDK
// LanguageModel, and a scripted function (tests, demos) that records every request it was sent.
import type { LanguageModel } from "ai";
import { type ConversationJob, createChatCompletionClient } from "../../conversations/index.ts";
import { DramaturgError } from "../../core/index.ts";

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface ChatRequest {
  /** The history, oldest first; a system message first when there is one. A copy: the target may keep it. */
  messages: readonly ChatMessage[];
  /** The run's seed for this conversation (passed on to models that take one). */
  seed: number;
  signal?: AbortSignal;
}

/** The target: its reply to a history. */
export type ChatTarget = (request: ChatRequest) => Promise<string>;

/** The target could not answer (its server down, an error from its model): the run cannot complete, exit 3. */
export class TargetUnavailableError extends DramaturgError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("TargetUnavailableError", message, { exitCode: 3, cause: options.cause });
  }
  static override isInstance(error: unknown): error is TargetUnavailableError {
    return DramaturgError.isInstance(error) && error.name === "TargetUnavailableError";
  }
}

/**
 * An OpenAI-compatible agent (the converse client: its time limit, retries, back-off), the whole history sent
 * with each request. `target` as a conversation job's (`dramaturg schema conversation`), protocol openai-chat.
 */
export function agentTarget(
  target: Partial<ConversationJob["target"]> & { url: string },
  options: { fetch?: typeof fetch; backoffMs?: number } = {},
): ChatTarget {
  const client = createChatCompletionClient(
    {
      user: "dramaturg-drift",
      chatbot: "agent",
      protocol: "openai-chat",
      timeoutMs: 30_000,
      retries: 3,
      ...target,
    },
    options,
  );
  return async ({ messages }) => (await client.complete(messages)).text;
}

/** An AI SDK model as the target: the leading system messages as its system prompt, the rest as messages. */
export function languageModelTarget(
  model: LanguageModel,
  { temperature, maxOutputTokens }: { temperature?: number; maxOutputTokens?: number } = {},
): ChatTarget {
  return async ({ messages, seed, signal }) => {
    // Loaded with the first call: the AI SDK is the costliest import there is.
    const { generateText } = await import("ai");
    const system = messages
      .filter((m) => m.role === "system")
      .map((m) => m.content)
      .join("\n\n");
    try {
      const result = await generateText({
        model,
        ...(system ? { system } : {}),
        messages: messages
          .filter((m) => m.role !== "system")
          .map((m) => ({ role: m.role as "user" | "assistant", content: m.content })),
        seed,
        temperature,
        maxOutputTokens,
        abortSignal: signal,
      });
      return result.text;
    } catch (error) {
      if (DramaturgError.isInstance(error) || signal?.aborted) throw error;
      throw new TargetUnavailableError(`the target model failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
  };
}

/** A scripted target and every request it was sent, in order (copies). */
export interface ScriptedTarget extends ChatTarget {
  readonly requests: ChatMessage[][];
}

/** A target whose reply is `reply(messages, index)`: no model, for tests and offline demos. */
export function scriptedTarget(
  reply: (messages: readonly ChatMessage[], index: number) => string | Promise<string>,
): ScriptedTarget {
  const requests: ChatMessage[][] = [];
  const target = async ({ messages }: ChatRequest) => {
    const copy = messages.map((m) => ({ ...m }));
    requests.push(copy);
    return reply(copy, requests.length - 1);
  };
  return Object.assign(target, { requests });
}
