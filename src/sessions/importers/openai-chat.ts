// OpenAI chat-completions messages as a session: each user message opens a turn; the assistant messages
// after it are the agents' interactions (an assistant's `name` is its agent id; an unnamed reply continues the
// named agent it follows in the turn), their `tool_calls` the steps, `tool` messages the results. The
// request's `tools` (in the file or given apart) are every agent's tools, its system (or developer) messages
// every agent's description (one with a `name`, that agent's): the instructions a persona evaluation reads as
// the persona. Nothing is invented: handoffs and latencies the log does not record stay absent.
import { z } from "zod";
import { firstIssue, InputError, issuePath, validateInput } from "../../core/index.ts";
import type { SessionInput } from "../session-format.ts";
import type { Imported, SessionImporter } from "./importer.ts";

const ToolCall = z.object({
  id: z.string().optional(),
  type: z.literal("function").optional(),
  function: z.object({ name: z.string().min(1), arguments: z.string().optional().default("{}") }),
});

const Content = z.union([
  z.string(),
  z.null(),
  z.array(z.object({ type: z.string(), text: z.string().optional() }).loose()),
]);

const Message = z
  .object({
    role: z.enum(["system", "developer", "user", "assistant", "tool", "function"]),
    content: Content.optional(),
    name: z.string().optional(),
    tool_calls: z.array(ToolCall).optional(),
    tool_call_id: z.string().optional(),
  })
  .loose();

export const OpenAIToolsSchema = z.array(
  z.object({
    type: z.literal("function").optional(),
    function: z.object({
      name: z.string().min(1),
      description: z.string().optional(),
      parameters: z.record(z.string(), z.unknown()).optional(),
    }),
  }),
);

const Conversation = z
  .object({
    messages: z.array(Message).min(1),
    tools: OpenAIToolsSchema.optional(),
    id: z.string().optional(),
  })
  .loose();

type Msg = z.infer<typeof Message>;

function text(content: Msg["content"]): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => p.text ?? "").join("");
  return "";
}

/** A tool message's content as the value it carries: JSON when it parses, the text otherwise. */
function resultValue(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

function isChatMessage(v: unknown): boolean {
  return typeof v === "object" && v !== null && typeof (v as { role?: unknown }).role === "string";
}

export const openaiChatImporter: SessionImporter = {
  name: "openai",
  detect: (value) =>
    (Array.isArray(value) && value.length > 0 && value.every(isChatMessage)) ||
    (typeof value === "object" &&
      value !== null &&
      Array.isArray((value as { messages?: unknown }).messages) &&
      (value as { messages: unknown[] }).messages.every(isChatMessage)),
  import(value, { file, tools: extraTools }): Imported {
    const parsed = validateInput(Conversation, Array.isArray(value) ? { messages: value } : value);
    if (!parsed.success) {
      const issue = firstIssue(parsed.error);
      const path = Array.isArray(value) && issue.path[0] === "messages" ? issue.path.slice(1) : issue.path;
      throw new InputError(issue.message, { file, place: issuePath(path) });
    }
    const { messages, tools = extraTools, id } = parsed.data;
    const notes: string[] = [];
    const turns: NonNullable<SessionInput["turns"]> = [];
    const agentIds: string[] = [];
    type Interaction = NonNullable<(typeof turns)[number]["agent_interactions"]>[number];
    let current: Interaction | undefined;
    const calls = new Map<string, { tool_name: string; result?: unknown }>();
    const instructions: { to?: string; text: string }[] = [];
    messages.forEach((m, i) => {
      if (m.role === "system" || m.role === "developer") {
        const said = text(m.content).trim();
        if (said) instructions.push({ ...(m.name ? { to: m.name } : {}), text: said });
        return;
      }
      if (m.role === "user") {
        turns.push({ user_message: text(m.content), agent_interactions: [] });
        current = undefined;
        return;
      }
      if (turns.length === 0) {
        notes.push(
          `messages[${i}]: ${m.role === "assistant" ? "an" : "a"} ${m.role} message before the first user message opens a turn with no user message`,
        );
        turns.push({ user_message: "", agent_interactions: [] });
      }
      const turn = turns.at(-1)!;
      if (m.role === "assistant") {
        // The API's reply never carries a `name` (a framework adds it when it sends the history back), so a
        // log that ends in the reply has it unnamed: within a turn it continues the named agent it follows.
        const continued = m.name === undefined && current && current.agent_id !== "assistant";
        const agent = m.name ?? current?.agent_id ?? "assistant";
        if (continued)
          notes.push(
            `messages[${i}]: an assistant message without a name is read as ${agent}'s, whom it follows`,
          );
        if (!agentIds.includes(agent)) agentIds.push(agent);
        if (!current || current.agent_id !== agent) {
          current = { agent_id: agent, agent_steps: [] };
          turn.agent_interactions!.push(current);
        }
        const said = text(m.content);
        if (said) current.output = current.output ? `${current.output}\n${said}` : said;
        for (const [j, call] of (m.tool_calls ?? []).entries()) {
          let parameters: Record<string, unknown>;
          let argumentsText: string | undefined;
          try {
            const args = JSON.parse(call.function.arguments);
            if (typeof args !== "object" || args === null || Array.isArray(args))
              throw new Error("not an object");
            parameters = args;
          } catch {
            parameters = {};
            argumentsText = call.function.arguments;
            notes.push(
              `messages[${i}].tool_calls[${j}].function.arguments: not a JSON object; the call is reported as invalid`,
            );
          }
          const step = {
            tool_call: {
              tool_name: call.function.name,
              ...(call.id ? { id: call.id } : {}),
              parameters,
              ...(argumentsText !== undefined ? { arguments_text: argumentsText } : {}),
            },
          };
          current.agent_steps!.push(step);
          if (call.id) calls.set(call.id, step.tool_call);
        }
        return;
      }
      // tool (or the older function) message: the result of the call it answers.
      const call = m.tool_call_id ? calls.get(m.tool_call_id) : undefined;
      if (!call) {
        notes.push(`messages[${i}]: a ${m.role} message answers no earlier tool call; left out`);
        return;
      }
      call.result = resultValue(text(m.content));
    });
    if (agentIds.length === 0) agentIds.push("assistant");
    const toolList = tools?.map((t) => ({
      name: t.function.name,
      ...(t.function.description ? { description: t.function.description } : {}),
      ...(t.function.parameters ? { parameters_schema: t.function.parameters } : {}),
    }));
    if (!toolList)
      notes.push("no tools given (a `tools` list in the file or --tools FILE): tool calls are not checked");
    else if (agentIds.length > 1)
      notes.push(`the request's tools are every agent's (${agentIds.join(", ")})`);
    const session: SessionInput = {
      ...(id ? { id } : {}),
      agents: agentIds.map((a) => {
        const description = instructions
          .filter((x) => x.to === undefined || x.to === a)
          .map((x) => x.text)
          .join("\n\n");
        return {
          id: a,
          ...(description ? { description } : {}),
          ...(toolList ? { tools_available: toolList } : {}),
        };
      }),
      turns,
    };
    return { sessions: [session], notes };
  },
};
