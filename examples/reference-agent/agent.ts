// The reference agent: a small real agent to run conversation jobs against. It speaks the OpenAI chat API
// on 127.0.0.1, answers with an AI SDK model and real tools that write to its own store (reminders, notes,
// a customer record, kept per user), and shows that store at GET /state so a job's assertions can read it.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, type ModelMessage, stepCountIs, tool } from "ai";
import { z } from "zod";

export interface ReferenceAgentOptions {
  /** Port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** Base URL of the OpenAI-compatible server the agent's model runs on (ending in `/v1`). */
  modelUrl: string;
  /** The model's name on that server. Default "gpt-4o-mini". */
  model?: string;
  /** The model server's API key. Default: OPENAI_API_KEY, or a placeholder for local servers. */
  apiKey?: string;
  /** A delay the agent adds before each reply, ms: a slower agent, for timing scores. Default 0. */
  latencyMs?: number;
  /** Tools answer "done" without writing anything: the agent that says the right thing and does nothing. */
  failWrites?: boolean;
}

/** What one user's store holds: what GET /state returns, the job's `objectContext`. */
export interface AgentState {
  reminders: { text: string; due: string }[];
  notes: { text: string }[];
  customer: { name: string | null; email: string | null; timezone: string | null };
}

/** One chat request the agent answered: for whom, in how long, and how many model calls it took. */
export interface HandledRequest {
  user: string;
  ms: number;
  modelCalls: number;
}

export interface ReferenceAgent {
  /** Base URL, e.g. `http://127.0.0.1:8081`; the chat API is at `${url}/v1`. */
  url: string;
  /** Every chat request answered, in the order they finished. */
  handled: HandledRequest[];
  close(): Promise<void>;
}

const SYSTEM = [
  "You are a personal assistant. You can create reminders, take notes and keep the user's customer record",
  "(name, email, timezone) up to date with your tools. When the user asks for one of these, call the tool:",
  "never claim you did something you did not do. Answer other questions briefly.",
].join(" ");

const ChatRequestSchema = z.object({
  model: z.string().optional(),
  user: z.string().min(1).optional(),
  stream: z.literal(false, { error: "streaming is not supported; send stream: false" }).optional(),
  messages: z
    .array(
      z.object({
        role: z.enum(["system", "user", "assistant"]),
        content: z.string().nullable().default(""),
      }),
    )
    .min(1),
});

const emptyState = (): AgentState => ({
  reminders: [],
  notes: [],
  customer: { name: null, email: null, timezone: null },
});

export async function startReferenceAgent({
  port = 0,
  modelUrl,
  model = "gpt-4o-mini",
  apiKey = process.env.OPENAI_API_KEY ?? "no-key",
  latencyMs = 0,
  failWrites = false,
}: ReferenceAgentOptions): Promise<ReferenceAgent> {
  const languageModel = createOpenAI({ baseURL: modelUrl, apiKey }).chat(model);
  const stores = new Map<string, AgentState>();
  const handled: HandledRequest[] = [];
  const storeOf = (user: string) => {
    let state = stores.get(user);
    if (!state) stores.set(user, (state = emptyState()));
    return state;
  };

  /** The tools, bound to one user's store. With failWrites they answer the same and write nothing. */
  const toolsFor = (state: AgentState) => ({
    create_reminder: tool({
      description: "Create a reminder for the user",
      inputSchema: z.object({
        text: z.string().describe("What to remind the user of"),
        due: z.string().describe("When, e.g. 2026-11-25 09:00"),
      }),
      execute: async (reminder) => {
        if (!failWrites) state.reminders.push(reminder);
        return { ok: true };
      },
    }),
    add_note: tool({
      description: "Keep a note for the user",
      inputSchema: z.object({ text: z.string() }),
      execute: async ({ text }) => {
        if (!failWrites) state.notes.push({ text });
        return { ok: true };
      },
    }),
    update_customer: tool({
      description: "Update the user's customer record; give only the fields that change",
      inputSchema: z.object({
        name: z.string().optional(),
        email: z.string().optional(),
        timezone: z.string().optional().describe("An IANA timezone, e.g. Europe/Lisbon"),
      }),
      execute: async (fields) => {
        if (!failWrites) Object.assign(state.customer, fields);
        return { ok: true, customer: failWrites ? { ...state.customer, ...fields } : state.customer };
      },
    }),
  });

  async function chat(body: unknown, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const parsed = ChatRequestSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return send(res, 400, { error: { message: `${issue.path.join(".") || "body"}: ${issue.message}` } });
    }
    const user = parsed.data.user ?? "default";
    const messages = parsed.data.messages.map((m) => ({ role: m.role, content: m.content ?? "" }));
    const result = await generateText({
      model: languageModel,
      system: SYSTEM,
      messages: messages as ModelMessage[],
      // As in the OpenAI API, the caller may open with system messages of its own (a job's text seeds).
      allowSystemInMessages: true,
      tools: toolsFor(storeOf(user)),
      stopWhen: stepCountIs(5),
    });
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    // The tools it ran, reported beside the reply (Dramaturg reads them as the conversation's tool calls).
    const calls = result.steps.flatMap((step) => step.toolCalls);
    handled.push({ user, ms: performance.now() - started, modelCalls: result.steps.length });
    send(res, 200, {
      id: `chatcmpl-ref-${handled.length}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: parsed.data.model ?? model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: result.text,
            ...(calls.length
              ? {
                  tool_calls: calls.map((c) => ({
                    id: c.toolCallId,
                    type: "function",
                    function: { name: c.toolName, arguments: JSON.stringify(c.input) },
                  })),
                }
              : {}),
          },
          finish_reason: "stop",
        },
      ],
      usage: {
        prompt_tokens: result.totalUsage.inputTokens ?? 0,
        completion_tokens: result.totalUsage.outputTokens ?? 0,
        total_tokens: result.totalUsage.totalTokens ?? 0,
      },
    });
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://agent");
    const user = url.searchParams.get("user");
    const text = await readBody(req);
    if (req.method === "POST" && url.pathname === "/v1/chat/completions") {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return send(res, 400, { error: { message: "the body is not JSON" } });
      }
      return chat(body, res);
    }
    if (req.method === "GET" && url.pathname === "/state") return send(res, 200, storeOf(user ?? "default"));
    // The job's setup calls this before each pass, so every pass starts from an empty store.
    if (req.method === "POST" && url.pathname === "/reset") {
      if (user) stores.delete(user);
      else stores.clear();
      return send(res, 200, { ok: true });
    }
    send(res, 404, { error: { message: `no route for ${req.method} ${url.pathname}` } });
  }

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 502, { error: { message: `the agent failed: ${String(error)}` } });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    handled,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (text += chunk));
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(json) });
  res.end(json);
}
