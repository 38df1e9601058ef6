// Records examples/sessions/openai-chat.json: an OpenAI chat-completions conversation as the OpenAI
// Agents SDK (JS, @openai/agents 0.20.0, its OpenAIChatCompletionsModel on the `openai` client) sends it:
// the last request's messages and tools, exactly as posted, plus the final reply. The endpoint is a
// loopback server with scripted replies, so the words are scripted; the format, the message shapes and
// the tools' schemas are the SDK's own. Run: npm ci && node record-chat.mjs.
import { writeFileSync } from "node:fs";
import { Agent, run, setTracingDisabled, tool } from "@openai/agents";
import { OpenAIChatCompletionsModel } from "@openai/agents-openai";
import OpenAI from "openai";
import { z } from "zod";
import { scriptedChatEndpoint } from "./loopback.mjs";

setTracingDisabled(true);
const replies = [
  {
    role: "assistant",
    content: null,
    tool_calls: [
      {
        id: "call_a1",
        type: "function",
        function: {
          name: "search_flights",
          arguments: '{"origin":"LIS","destination":"OSL","date":"2026-03-03"}',
        },
      },
    ],
  },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      {
        id: "call_a2",
        type: "function",
        function: { name: "book_flight", arguments: '{"flight_id":"TP1234","seats":2}' },
      },
    ],
  },
  { role: "assistant", content: "Booked: TP1234 from Lisbon to Oslo on 3 March, two seats (booking BK-77)." },
];
const endpoint = await scriptedChatEndpoint(replies);
const client = new OpenAI({
  apiKey: "sk-local-only",
  baseURL: endpoint.baseURL,
});

const agent = new Agent({
  name: "booker",
  instructions: "You book flights. Search first, then book what the user asked for.",
  model: new OpenAIChatCompletionsModel(client, "scripted-model"),
  tools: [
    tool({
      name: "search_flights",
      description: "Find flights between two airports on a date",
      parameters: z.object({
        origin: z.string().length(3),
        destination: z.string().length(3),
        date: z.string(),
      }),
      execute: async () => JSON.stringify([{ flight_id: "TP1234", departs: "09:10" }]),
    }),
    tool({
      name: "book_flight",
      description: "Book seats on a flight",
      parameters: z.object({ flight_id: z.string(), seats: z.number().int().min(1) }),
      execute: async () => JSON.stringify({ booking: "BK-77" }),
    }),
  ],
});
const result = await run(agent, "Book me two seats from Lisbon to Oslo on 3 March.");
await endpoint.close();
const last = endpoint.requests.at(-1);
const conversation = {
  messages: [...last.messages, { role: "assistant", name: "booker", content: result.finalOutput }],
  tools: last.tools,
};
// The SDK does not name the assistant in its messages: the agent's name is added to each assistant
// message, as a multi-agent log would carry it.
for (const m of conversation.messages) if (m.role === "assistant") m.name = "booker";
const out = new URL("../../examples/sessions/openai-chat.json", import.meta.url);
writeFileSync(out, `${JSON.stringify(conversation, null, 1)}\n`);
console.log(`wrote ${out}: ${conversation.messages.length} messages, ${endpoint.requests.length} requests`);
