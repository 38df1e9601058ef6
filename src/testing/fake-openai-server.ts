// A fake OpenAI-compatible chat-completions server on 127.0.0.1, so tests and benchmarks exercise the real
// provider clients over real HTTP without a network: latency, 429/500/hang/malformed faults, usage counts.
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One injected failure for one call. */
export type Fault =
  /** Rate limited: status 429 with a `retry-after` header (seconds) and, if given, `retry-after-ms`. */
  | { type: "429"; retryAfterSeconds?: number; retryAfterMs?: number }
  /** A server error (retryable by every client). */
  | { type: "500" }
  /** Never answer; the request stays open until the client aborts or the server closes. */
  | { type: "hang" }
  /** Status 200 whose content is not valid JSON. */
  | { type: "malformed" }
  /** Status 200 with well-formed JSON whose values are out of range (score 12, count -1). */
  | { type: "out-of-range" }
  /** Any other HTTP status with an OpenAI-style error body (400, 401, 404, 503…). */
  | { type: "status"; status: number; message?: string };

export interface FakeChatMessage {
  role: string;
  content?: string | Array<{ type: string; text?: string }> | null;
  tool_calls?: unknown[];
  [key: string]: unknown;
}

/** The request body as the client sent it (chat completions). */
export interface FakeChatRequest {
  model: string;
  messages: FakeChatMessage[];
  response_format?: { type: string; json_schema?: { name?: string; schema?: JsonSchema; strict?: boolean } };
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: JsonSchema } }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  temperature?: number;
  [key: string]: unknown;
}

export interface FakeToolCall {
  name: string;
  /** Object arguments are JSON-encoded; strings are sent as they are. */
  arguments: unknown;
  id?: string;
}

/** What a responder returns: text content, an object (sent as JSON content), or tool calls. */
export type FakeReply = string | { tool_calls: FakeToolCall[]; content?: string } | Record<string, unknown>;

export type FakeResponder = (request: FakeChatRequest, callIndex: number) => FakeReply | Promise<FakeReply>;

export interface FakeOpenAIServerOptions {
  /** Delay before each answer, in ms; a function may vary it per call. Default 0. */
  latencyMs?: number | ((callIndex: number, request: FakeChatRequest) => number);
  /** Produces each answer. Default: {@link defaultResponder}, which answers Dramaturg's judge schemas. */
  respond?: FakeResponder;
  /** Score the default responder gives a claim id (0–9). Default: a hash of the id and the prompt. */
  scoreFor?: (id: string, prompt: string) => number;
  /** Faults to inject: a function of the call, or an array indexed by call (holes mean no fault). */
  faults?:
    | ((callIndex: number, request: FakeChatRequest) => Fault | undefined)
    | ReadonlyArray<Fault | undefined>;
  /** Require `Authorization: Bearer …`: `true` accepts any key, a string only that key. Else 401. */
  requireApiKey?: boolean | string;
  /** Keep every request body in `stats.requests` (default true; turn off for long benchmarks). */
  recordRequests?: boolean;
}

export interface FakeServerStats {
  /** Chat-completion requests received, faulted and rejected ones included. */
  calls: number;
  /** Request bodies in arrival order (when `recordRequests`). Authorization headers are never kept. */
  requests: FakeChatRequest[];
  /** Requests being processed right now, and the most there ever were at once. */
  inFlight: number;
  maxInFlight: number;
  /** Requests held open by a `hang` fault right now: they have arrived and will never be answered. */
  hanging: number;
  /** Requests the client gave up on (closed its connection) before the answer was sent; `close()` aside. */
  aborted: number;
  /** When the first chat request arrived (epoch milliseconds). */
  firstCallAt?: number;
  /**
   * Tokens answered so far, estimated as characters / 4 (rounded up per request): the messages, the
   * completions, and the answer schema or tool definitions a provider would also bill.
   */
  tokens: { prompt: number; completion: number; schema: number };
}

export interface FakeOpenAIServer {
  /** Base URL ending in `/v1`, for `createOpenAI({ baseURL })`. */
  url: string;
  port: number;
  stats: FakeServerStats;
  /**
   * Resolves once `condition(stats)` holds: checked now and after every change to the stats (a request
   * arriving, starting to hang, being answered or given up on), so a test waits on what the server saw,
   * not on a sleep. Rejects when `timeoutMs` (default 5000) passes first, or when the server closes.
   */
  until(condition: (stats: FakeServerStats) => boolean, options?: { timeoutMs?: number }): Promise<void>;
  /** Stops listening and destroys every open socket, hanging requests included. */
  close(): Promise<void>;
}

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  anyOf?: JsonSchema[];
  [key: string]: unknown;
};

/** Starts the server on an ephemeral port of 127.0.0.1. */
export async function startFakeOpenAIServer(
  options: FakeOpenAIServerOptions = {},
): Promise<FakeOpenAIServer> {
  const stats: FakeServerStats = {
    calls: 0,
    requests: [],
    inFlight: 0,
    maxInFlight: 0,
    hanging: 0,
    aborted: 0,
    tokens: { prompt: 0, completion: 0, schema: 0 },
  };
  const respond = options.respond ?? defaultResponder({ scoreFor: options.scoreFor });
  const recordRequests = options.recordRequests ?? true;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  /** Conditions tests wait on (`until`), each checked after every change to the stats. */
  const waiters = new Set<{
    condition: (stats: FakeServerStats) => boolean;
    settle: (error?: Error) => void;
  }>();
  const changed = () => {
    for (const waiter of waiters) if (waiter.condition(stats)) waiter.settle();
  };
  /** Set by `close()`: the sockets it destroys are not clients giving up. */
  let closing = false;

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent && !res.destroyed) sendError(res, 500, `fake server failure: ${String(error)}`);
    });
  });
  // Keep-alive connections are fine during a run; `close()` destroys them explicitly.
  server.keepAliveTimeout = 30_000;
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "").split("?")[0];
    if (req.method !== "POST" || path !== "/v1/chat/completions") {
      req.resume();
      sendError(res, 404, `no route for ${req.method} ${path}`);
      return;
    }
    const callIndex = stats.calls++;
    stats.firstCallAt ??= Date.now();
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    let finished = false;
    let hangs = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      stats.inFlight--;
      if (hangs) stats.hanging--;
      if (!res.writableFinished && !closing) stats.aborted++;
      changed();
    };
    res.on("close", finish);
    changed();

    const raw = await readBody(req);
    let request: FakeChatRequest;
    try {
      request = JSON.parse(raw) as FakeChatRequest;
      if (!Array.isArray(request.messages)) throw new Error("messages must be an array");
    } catch (error) {
      sendError(res, 400, `invalid request body: ${(error as Error).message}`);
      return;
    }
    if (recordRequests) stats.requests.push(request);

    if (options.requireApiKey) {
      const header = req.headers.authorization ?? "";
      const key = header.startsWith("Bearer ") ? header.slice(7) : "";
      const wanted = options.requireApiKey;
      if (!key || (typeof wanted === "string" && key !== wanted)) {
        // Like OpenAI, the message quotes the key it got, so clients' redaction can be tested.
        sendError(res, 401, `Incorrect API key provided: ${key || "(none)"}.`, "invalid_api_key");
        return;
      }
    }

    const fault = pickFault(options.faults, callIndex, request);
    const latency =
      typeof options.latencyMs === "function"
        ? options.latencyMs(callIndex, request)
        : (options.latencyMs ?? 0);
    if (fault?.type === "hang") {
      // The socket stays open until the client aborts or close() destroys it.
      if (!finished) {
        hangs = true;
        stats.hanging++;
        changed();
      }
      return;
    }
    if (latency > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve();
        }, latency);
        timers.add(timer);
      });
    }
    if (res.destroyed || res.writableEnded) return; // the client gave up while we waited

    switch (fault?.type) {
      case "429": {
        const headers: Record<string, string> = { "retry-after": String(fault.retryAfterSeconds ?? 1) };
        if (fault.retryAfterMs !== undefined) headers["retry-after-ms"] = String(fault.retryAfterMs);
        sendError(res, 429, "Rate limit reached (fake).", "rate_limit_exceeded", headers);
        return;
      }
      case "500":
        sendError(res, 500, "The server had an error (fake).", "server_error");
        return;
      case "status":
        sendError(res, fault.status, fault.message ?? `fake status ${fault.status}`, "fake_error");
        return;
    }

    let reply: FakeReply;
    if (fault?.type === "malformed") reply = '{"verdicts": [{"id": "oops", "value": ';
    else if (fault?.type === "out-of-range") reply = outOfRange(await respond(request, callIndex));
    else reply = await respond(request, callIndex);
    if (res.destroyed || res.writableEnded) return;
    const usage = sendReply(res, request, reply, callIndex);
    stats.tokens.prompt += usage.prompt_tokens;
    stats.tokens.completion += usage.completion_tokens;
    stats.tokens.schema += tokensOf(
      (request.tools ? JSON.stringify(request.tools) : "") +
        (request.response_format ? JSON.stringify(request.response_format) : ""),
    );
    changed();
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    stats,
    until: (condition, { timeoutMs = 5000 } = {}) =>
      new Promise<void>((resolve, reject) => {
        if (condition(stats)) return resolve();
        if (closing) return reject(new Error("the fake server is closed"));
        const waiter = {
          condition,
          settle: (error?: Error) => {
            clearTimeout(timer);
            waiters.delete(waiter);
            if (error) reject(error);
            else resolve();
          },
        };
        const timer = setTimeout(() => {
          const { calls, inFlight, hanging, aborted } = stats;
          waiter.settle(
            new Error(
              `the fake server's stats did not meet the condition within ${timeoutMs} ms (calls ${calls}, in flight ${inFlight}, hanging ${hanging}, aborted ${aborted})`,
            ),
          );
        }, timeoutMs);
        waiters.add(waiter);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        for (const waiter of waiters)
          waiter.settle(new Error("the fake server closed before the condition held"));
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      }),
  };
}

function pickFault(
  faults: FakeOpenAIServerOptions["faults"],
  callIndex: number,
  request: FakeChatRequest,
): Fault | undefined {
  if (!faults) return undefined;
  if (typeof faults === "function") return faults(callIndex, request);
  return faults[callIndex];
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  code = "fake_error",
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({ error: { message, type: code, param: null, code } });
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/** Text of a message's content, whether a string or an array of parts. */
export function messageText(message: FakeChatMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => part.text ?? "").join("");
  return "";
}

const approxTokens = (chars: number) => Math.ceil(chars / 4);
const tokensOf = (text: string) => approxTokens(text.length);

/** Sends the reply and returns the usage it reported. */
function sendReply(
  res: ServerResponse,
  request: FakeChatRequest,
  reply: FakeReply,
  callIndex: number,
): { prompt_tokens: number; completion_tokens: number } {
  const promptChars = request.messages.reduce((sum, m) => sum + messageText(m).length, 0);
  const toolCalls =
    typeof reply === "object" &&
    reply !== null &&
    Array.isArray((reply as { tool_calls?: unknown }).tool_calls)
      ? (reply as { tool_calls: FakeToolCall[]; content?: string }).tool_calls.map((call, i) => ({
          id: call.id ?? `call_${callIndex}_${i}`,
          type: "function" as const,
          function: {
            name: call.name,
            arguments:
              typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
          },
        }))
      : undefined;
  const content = toolCalls
    ? ((reply as { content?: string }).content ?? null)
    : typeof reply === "string"
      ? reply
      : JSON.stringify(reply);
  const completionChars =
    (content?.length ?? 0) + (toolCalls ?? []).reduce((s, c) => s + c.function.arguments.length, 0);
  const usage = {
    prompt_tokens: approxTokens(promptChars),
    completion_tokens: approxTokens(completionChars),
    total_tokens: approxTokens(promptChars) + approxTokens(completionChars),
  };
  const finishReason = toolCalls ? "tool_calls" : "stop";
  const id = `chatcmpl-fake-${callIndex}`;
  const created = 1_700_000_000; // fixed, so answers are reproducible

  if (request.stream) {
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    const chunk = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: request.model, choices: [choice], ...extra })}\n\n`;
    let out = chunk({ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null });
    if (content) {
      // Two deltas, so clients really reassemble the content.
      const half = Math.ceil(content.length / 2);
      for (const piece of [content.slice(0, half), content.slice(half)])
        if (piece) out += chunk({ index: 0, delta: { content: piece }, finish_reason: null });
    }
    toolCalls?.forEach((call, index) => {
      out += chunk({ index: 0, delta: { tool_calls: [{ index, ...call }] }, finish_reason: null });
    });
    out += chunk({ index: 0, delta: {}, finish_reason: finishReason });
    if (request.stream_options?.include_usage)
      out += `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: request.model, choices: [], usage })}\n\n`;
    out += "data: [DONE]\n\n";
    res.end(out);
    return usage;
  }

  const body = JSON.stringify({
    id,
    object: "chat.completion",
    created,
    model: request.model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
        finish_reason: finishReason,
      },
    ],
    usage,
  });
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
  return usage;
}

function outOfRange(reply: FakeReply): FakeReply {
  if (typeof reply !== "object" || reply === null || "tool_calls" in reply)
    return { verdicts: [{ id: "x", value: 12 }] };
  const copy = structuredClone(reply) as Record<string, unknown>;
  if (Array.isArray(copy.verdicts))
    for (const v of copy.verdicts as Array<Record<string, unknown>>) v.value = 12;
  else if ("value" in copy) copy.value = 12;
  if ("count" in copy) copy.count = -1;
  return copy;
}

// ---------------------------------------------------------------------------------------------------------------
// Default responder

const CLAIM_ID = /<claim\s+id="([^"]*)"/g;

/** Claim ids of the most recent user message that has any (a double-check turn has none of its own). */
export function claimIds(request: FakeChatRequest): { ids: string[]; prompt: string } {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]!;
    if (message.role !== "user") continue;
    const prompt = messageText(message);
    const ids = [...prompt.matchAll(CLAIM_ID)].map((m) => m[1]!);
    if (ids.length > 0) return { ids, prompt };
  }
  return { ids: [], prompt: "" };
}

/** A deterministic 0–9 from the claim id and the prompt it appeared in. */
export function hashScore(id: string, prompt: string): number {
  return createHash("sha256").update(`${id}\n${prompt}`).digest()[0]! % 10;
}

/**
 * Answers Dramaturg's judge schemas: per-claim scores or booleans for `verdicts` schemas, a short idea
 * list for count schemas, a minimal valid instance for any other JSON schema, and plain text otherwise.
 */
export function defaultResponder({
  scoreFor = hashScore,
}: {
  scoreFor?: (id: string, prompt: string) => number;
} = {}): FakeResponder {
  return (request) => {
    const schema = request.response_format?.json_schema?.schema;
    if (!schema) {
      if (request.response_format?.type === "json_object") return {};
      return "This is a reply from the fake model.";
    }
    const props = schema.properties ?? {};
    const verdictValue = props.verdicts?.items?.properties?.value;
    if (verdictValue) {
      const { ids, prompt } = claimIds(request);
      const boolean = schemaTypes(verdictValue).includes("boolean");
      return {
        verdicts: ids.map((id) => {
          const score = scoreFor(id, prompt);
          return {
            id,
            reasoning: `Fake reasoning for ${id}.`,
            value: boolean ? score >= 5 : score,
          };
        }),
      };
    }
    // One claim: its verdict alone (reasoning, value), the claim named in the prompt.
    if (props.reasoning && props.value && !props.verdicts) {
      const { ids, prompt } = claimIds(request);
      const id = ids[0] ?? "claim";
      const score = scoreFor(id, prompt);
      return {
        reasoning: `Fake reasoning for ${id}.`,
        value: schemaTypes(props.value).includes("boolean") ? score >= 5 : score,
      };
    }
    if (props.ideas && props.count) {
      const ideas = ["a shared grocery app", "a bike repair subscription", "a neighbourhood tool library"];
      return { reasoning: "Fake reasoning: three distinct ideas were proposed.", ideas, count: ideas.length };
    }
    return exampleOf(schema) as Record<string, unknown>;
  };
}

function schemaTypes(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === "string") return [schema.type];
  return (schema.anyOf ?? []).flatMap(schemaTypes);
}

/** A small value that satisfies a (simple) JSON schema. */
function exampleOf(schema: JsonSchema): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  if (schema.anyOf && schema.anyOf.length > 0) return exampleOf(schema.anyOf[0]!);
  const type = schemaTypes(schema).find((t) => t !== "null") ?? "object";
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(schema.properties ?? {})) out[key] = exampleOf(value);
      return out;
    }
    case "array":
      return [];
    case "string":
      return "fake";
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 0;
    case "boolean":
      return true;
    default:
      return null;
  }
}
