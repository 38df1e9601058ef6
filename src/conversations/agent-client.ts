// Talking to the agent under test: an OpenAI-compatible chat endpoint (the history sent each turn) or a
// configurable HTTP POST. Each attempt has a time limit; failed attempts are retried with back-off and
// every one of them is counted (the composite's failure penalty); a turn's latency is that of the attempt
// that answered, not of the retries before it.
import { DramaturgError, InputError } from "../core/index.ts";
import type { ConversationJob } from "./job.ts";

export interface AgentTurn {
  text: string;
  /** Of the attempt that answered. */
  latency_ms: number;
  /** Attempts made for this message, and how many of them failed. */
  attempts: number;
  failures: number;
  /** Tool calls the agent reported with its reply, when it reports them. */
  tool_calls?: { name: string; arguments: unknown }[];
}

/** The agent could not be reached or did not answer usably within its attempts. */
/** Why a request to the agent got no answer: its timeout, or the connection's failure (the code when there is one). */
export function unreachable(error: unknown, timeoutMs: number): string {
  if ((error as Error)?.name === "TimeoutError") return `no answer within ${timeoutMs} ms`;
  return `cannot reach it (${(error as { cause?: { code?: string } })?.cause?.code ?? (error as Error).message})`;
}

export class AgentUnavailableError extends DramaturgError {
  readonly attempts: number;
  readonly failures: number;
  constructor(message: string, { attempts, cause }: { attempts: number; cause?: unknown }) {
    super("AgentUnavailableError", message, { exitCode: 3, cause });
    this.attempts = attempts;
    this.failures = attempts;
  }
  static override isInstance(error: unknown): error is AgentUnavailableError {
    return DramaturgError.isInstance(error) && error.name === "AgentUnavailableError";
  }
}

export interface AgentClient {
  /** Sends the user's message and returns the agent's reply; the client keeps the conversation. */
  send(message: string): Promise<AgentTurn>;
  /** Gives the agent a text to remember before the conversation (a text seed). */
  seedText(text: string): Promise<void>;
  /** Failed attempts so far, over every message and seed. */
  readonly failures: number;
}

export interface AgentClientOptions {
  /** Overrides the job's target URL (`--target-url`). */
  url?: string;
  /** This conversation's id, for `{{conversation_id}}`. */
  conversationId: string;
  /** First back-off in ms (doubled per retry). Default 200. */
  backoffMs?: number;
  fetch?: typeof fetch;
}

type Target = ConversationJob["target"];

/** A failed attempt and whether another is worth making (a 4xx other than 408 and 429 is not). */
class AttemptError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** The value at a JSON pointer (`/choices/0/message/content`), or undefined. */
export function atPointer(value: unknown, pointer: string): unknown {
  if (pointer === "") return value;
  let at = value;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** `{{name}}` in every string of a template (a string or a JSON value) replaced by its value. */
export function fillTemplate(template: unknown, values: Record<string, string>): unknown {
  if (typeof template === "string")
    return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => values[name] ?? whole);
  if (Array.isArray(template)) return template.map((t) => fillTemplate(t, values));
  if (template && typeof template === "object")
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fillTemplate(v, values)]));
  return template;
}

/** One POST with retries and back-off, as the agent client makes it: the parsed JSON body of the attempt that answered. */
type Exchange = (
  endpoint: string,
  body: unknown,
  headers?: Record<string, string>,
) => Promise<{ json: unknown; latency_ms: number; attempts: number; failures: number }>;

/** The exchange of one agent (its time limit, retries and back-off); `onFailure` counts every failed attempt. */
function exchangeWith(
  target: Target,
  { fetch: doFetch = fetch, backoffMs = 200 }: Pick<AgentClientOptions, "fetch" | "backoffMs">,
  onFailure: () => void,
): Exchange {
  return async (endpoint, body, headers = {}) => {
    let attempts = 0;
    let failed = 0;
    let last: unknown;
    for (;;) {
      attempts++;
      const started = performance.now();
      try {
        const response = await doFetch(endpoint, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: typeof body === "string" ? body : JSON.stringify(body),
          signal: AbortSignal.timeout(target.timeoutMs),
        });
        const text = await response.text();
        if (!response.ok)
          throw new AttemptError(
            `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ""}`,
            response.status >= 500 || response.status === 408 || response.status === 429,
          );
        let json: unknown;
        try {
          json = text === "" ? null : JSON.parse(text);
        } catch {
          throw new AttemptError(`the reply is not JSON: ${JSON.stringify(text.slice(0, 120))}`, true);
        }
        return { json, latency_ms: performance.now() - started, attempts, failures: failed };
      } catch (error) {
        failed++;
        onFailure();
        last = error;
        const reason = error instanceof AttemptError ? error.message : unreachable(error, target.timeoutMs);
        const retryable = !(error instanceof AttemptError) || error.retryable;
        if (!retryable || attempts > target.retries)
          throw new AgentUnavailableError(
            `the agent at ${endpoint} failed ${attempts} attempt(s); last: ${reason}`,
            {
              attempts,
              cause: last,
            },
          );
        await new Promise((resolve) => setTimeout(resolve, backoffMs * 2 ** (attempts - 1)));
      }
    }
  };
}

/** A message of an OpenAI-compatible chat. */
export interface ChatCompletionMessage {
  role: "user" | "assistant" | "system";
  content: string;
}

/** One chat completion over a whole history: the agent's reply, or AgentUnavailableError. */
async function chatCompletion(
  exchange: Exchange,
  url: string,
  target: Target,
  messages: readonly ChatCompletionMessage[],
): Promise<AgentTurn> {
  const endpoint = `${url.replace(/\/$/, "")}/chat/completions`;
  const { json, latency_ms, attempts, failures } = await exchange(endpoint, {
    model: target.chatbot,
    messages,
    user: target.user,
  });
  const reply = atPointer(json, "/choices/0/message") as
    | { content?: unknown; tool_calls?: { function?: { name?: string; arguments?: string } }[] }
    | undefined;
  if (!reply || typeof reply.content !== "string")
    throw new AgentUnavailableError("the agent's reply has no message content (choices[0].message.content)", {
      attempts,
    });
  const calls = reply.tool_calls?.map((c) => {
    let args: unknown = c.function?.arguments;
    try {
      args = JSON.parse(String(args));
    } catch {}
    return { name: String(c.function?.name ?? "?"), arguments: args };
  });
  return {
    text: reply.content,
    latency_ms,
    attempts,
    failures,
    ...(calls?.length ? { tool_calls: calls } : {}),
  };
}

/**
 * An OpenAI-compatible agent asked over a history the caller keeps (the agent client's requests, retries and
 * time limit): what a caller that forks a conversation needs, where {@link createAgentClient} keeps one.
 */
export function createChatCompletionClient(
  target: Target,
  options: Omit<AgentClientOptions, "conversationId">,
): { complete(messages: readonly ChatCompletionMessage[]): Promise<AgentTurn>; readonly failures: number } {
  const url = options.url ?? target.url;
  if (!url) throw new InputError("the agent has no url; give one with --target-url");
  if (target.protocol !== "openai-chat")
    throw new InputError(
      "only an OpenAI-compatible agent (protocol openai-chat) can be asked over a history",
    );
  let failures = 0;
  const exchange = exchangeWith(target, options, () => failures++);
  return {
    get failures() {
      return failures;
    },
    complete: (messages) => chatCompletion(exchange, url, target, messages),
  };
}

export function createAgentClient(target: Target, options: AgentClientOptions): AgentClient {
  const url = options.url ?? target.url;
  if (!url) throw new InputError("the job's target has no url; give one with --target-url");
  let failures = 0;
  const history: ChatCompletionMessage[] = [];
  const exchange = exchangeWith(target, options, () => failures++);

  const values = (message: string) => ({
    message,
    conversation_id: options.conversationId,
    user: target.user,
  });

  return {
    get failures() {
      return failures;
    },
    async send(message) {
      if (target.protocol === "http") {
        const http = target.http!;
        const {
          json,
          latency_ms,
          attempts,
          failures: failed,
        } = await exchange(url, fillTemplate(http.body, values(message)), http.headers);
        const reply = atPointer(json, http.reply);
        if (typeof reply !== "string")
          throw new AgentUnavailableError(`the agent's reply has no text at ${http.reply || "(the root)"}`, {
            attempts,
          });
        return { text: reply, latency_ms, attempts, failures: failed };
      }
      history.push({ role: "user", content: message });
      let turn: AgentTurn;
      try {
        turn = await chatCompletion(exchange, url, target, history);
      } catch (error) {
        history.pop();
        throw error;
      }
      history.push({ role: "assistant", content: turn.text });
      return turn;
    },
    async seedText(text) {
      if (target.protocol === "http") {
        if (!target.http?.seedUrl) throw new InputError("a text seed needs target.http.seedUrl");
        await exchange(target.http.seedUrl, {
          text,
          user: target.user,
          conversation_id: options.conversationId,
        });
        return;
      }
      // An OpenAI-compatible agent keeps what it is told in the conversation: the seed opens it.
      history.push({ role: "system", content: text });
    },
  };
}
