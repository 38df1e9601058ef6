// The gate as AI SDK language-model middleware: `wrapLanguageModel({ model, middleware: actionGate(…) })`.
// A generated text is checked before the caller sees it; a failing one is regenerated with the feedback
// appended to the prompt as a user message. A stream is held until its text is checked, then released.
import type {
  LanguageModelV4Content,
  LanguageModelV4Message,
  LanguageModelV4Middleware,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import type { Agent } from "../core/index.ts";
import {
  type ActionGate,
  type ActionGateOptions,
  createActionGate,
  type GateCheckResult,
} from "./action-gate.ts";
import type { GateFeedback } from "./feedback.ts";
import type { GateHistoryEntry } from "./judge-dimension.ts";
import { isGate } from "./with-action-gate.ts";

export interface ActionGateMiddlewareOptions {
  /** A gate, or the options to create one. */
  gate: ActionGate | ActionGateOptions;
  /** The agent the model speaks as. */
  agent: Agent;
  /**
   * The agent's history for a call. Default: from the prompt, each earlier assistant message is the
   * agent's own and each user message a stimulus from "user" (system and tool messages are left out).
   */
  history?: (
    prompt: LanguageModelV4Prompt,
  ) => readonly GateHistoryEntry[] | Promise<readonly GateHistoryEntry[]>;
  /** Called with every check's result. */
  onCheck?: (result: GateCheckResult) => void;
}

/**
 * AI SDK middleware that puts the action gate on every generation. `wrapGenerate` returns the committed
 * attempt's result (usage summed over every generation); `wrapStream` reads the whole stream, checks its
 * text, then replays it with the committed text: the first token arrives only after the full generation
 * and the gate (one judge round trip, more per retry).
 */
export function actionGate({
  gate,
  agent,
  history,
  onCheck,
}: ActionGateMiddlewareOptions): LanguageModelV4Middleware {
  const actionGate = isGate(gate) ? gate : createActionGate(gate);
  const historyOf = history ?? historyFromPrompt;

  return {
    specificationVersion: "v4",
    async wrapGenerate({ doGenerate, params, model }) {
      const first = await doGenerate();
      const text = textOf(first.content);
      if (text.trim() === "") return first;
      const results = [first];
      const result = await actionGate.check({
        agent,
        tentativeText: text,
        history: await historyOf(params.prompt),
        async regenerate(feedback) {
          const again = await model.doGenerate({ ...params, prompt: withFeedback(params.prompt, feedback) });
          results.push(again);
          return textOf(again.content);
        },
      });
      onCheck?.(result);
      const chosen = results[result.committed.number - 1]!;
      return { ...chosen, usage: results.map((r) => r.usage).reduce(addModelUsage) };
    },

    async wrapStream({ doStream, params, model }) {
      const { stream, ...rest } = await doStream();
      const parts = await readAll(stream);
      const text = parts.map((p) => (p.type === "text-delta" ? p.delta : "")).join("");
      if (parts.some((p) => p.type === "error") || text.trim() === "")
        return { ...rest, stream: replay(parts) };
      const result = await actionGate.check({
        agent,
        tentativeText: text,
        history: await historyOf(params.prompt),
        async regenerate(feedback) {
          const again = await model.doGenerate({ ...params, prompt: withFeedback(params.prompt, feedback) });
          return textOf(again.content);
        },
      });
      onCheck?.(result);
      if (result.committed.number === 1) return { ...rest, stream: replay(parts) };
      return { ...rest, stream: replay(withText(parts, result.text)) };
    },
  };
}

/** The agent's history in a prompt: assistant messages are its own, user messages come from "user". */
export function historyFromPrompt(prompt: LanguageModelV4Prompt): GateHistoryEntry[] {
  const history: GateHistoryEntry[] = [];
  for (const message of prompt) {
    if (message.role !== "assistant" && message.role !== "user") continue;
    const text = message.content
      .map((part) => (part.type === "text" ? part.text : ""))
      .join("")
      .trim();
    if (text === "") continue;
    history.push(message.role === "assistant" ? { text } : { text, from: "user" });
  }
  return history;
}

/**
 * The prompt with the feedback appended as a user message. A user message, not a system one: several
 * providers accept system messages only at the start of a conversation.
 */
function withFeedback(prompt: LanguageModelV4Prompt, feedback: GateFeedback): LanguageModelV4Prompt {
  const message: LanguageModelV4Message = { role: "user", content: [{ type: "text", text: feedback.text }] };
  return [...prompt, message];
}

function textOf(content: readonly LanguageModelV4Content[]): string {
  return content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** The parts with their text blocks replaced by one block holding `text`, where the first one began. */
function withText(parts: readonly LanguageModelV4StreamPart[], text: string): LanguageModelV4StreamPart[] {
  const out: LanguageModelV4StreamPart[] = [];
  let placed = false;
  for (const part of parts) {
    if (part.type === "text-start") {
      if (!placed) {
        out.push(part, { type: "text-delta", id: part.id, delta: text }, { type: "text-end", id: part.id });
        placed = true;
      }
      continue;
    }
    if (part.type === "text-delta" || part.type === "text-end") continue;
    out.push(part);
  }
  return out;
}

async function readAll<T>(stream: ReadableStream<T>): Promise<T[]> {
  const parts: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value);
  }
}

function replay<T>(parts: readonly T[]): ReadableStream<T> {
  return new ReadableStream<T>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

const plus = (a: number | undefined, b: number | undefined) =>
  a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);

function addModelUsage(a: LanguageModelV4Usage, b: LanguageModelV4Usage): LanguageModelV4Usage {
  return {
    inputTokens: {
      total: plus(a.inputTokens.total, b.inputTokens.total),
      noCache: plus(a.inputTokens.noCache, b.inputTokens.noCache),
      cacheRead: plus(a.inputTokens.cacheRead, b.inputTokens.cacheRead),
      cacheWrite: plus(a.inputTokens.cacheWrite, b.inputTokens.cacheWrite),
    },
    outputTokens: {
      total: plus(a.outputTokens.total, b.outputTokens.total),
      text: plus(a.outputTokens.text, b.outputTokens.text),
      reasoning: plus(a.outputTokens.reasoning, b.outputTokens.reasoning),
    },
  };
}
