// Records examples/sessions/openinference.otlp.json: a real OTLP JSON export of OpenInference spans. The
// LLM spans come from @arizeai/openinference-instrumentation-openai on the `openai` client; the AGENT and
// TOOL spans around them are the app's own, with OpenInference attributes, as an app without an agent
// framework writes them. The chat-completions endpoint is a loopback server with scripted answers, so no
// API is called. Serialised by OpenTelemetry's OTLP JSON serializer. Run: npm ci && node record-openinference.mjs.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { OpenAIInstrumentation } from "@arizeai/openinference-instrumentation-openai";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { scriptedChatEndpoint } from "./loopback.mjs";

const answers = [
  {
    role: "assistant",
    content: null,
    // `units` is not among get_weather's parameters: the app's tool ignores it; the span keeps it.
    tool_calls: [
      {
        id: "call_w1",
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"Porto","units":"metric"}' },
      },
    ],
  },
  { role: "assistant", content: "It is 19 °C and sunny in Porto." },
];
const endpoint = await scriptedChatEndpoint(answers);

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(provider);
const require = createRequire(import.meta.url);
const openaiModule = require("openai");
new OpenAIInstrumentation({ tracerProvider: provider }).manuallyInstrument(openaiModule);
const client = new openaiModule.OpenAI({
  apiKey: "sk-local-only",
  baseURL: endpoint.baseURL,
});

const tools = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Current weather for a city",
      parameters: {
        type: "object",
        properties: { city: { type: "string" } },
        required: ["city"],
        additionalProperties: false,
      },
    },
  },
];
const tracer = provider.getTracer("weather-app");
const user = "What's the weather in Porto?";
await tracer.startActiveSpan(
  "forecaster",
  {
    attributes: {
      "openinference.span.kind": "AGENT",
      "agent.name": "forecaster",
      "session.id": "chat-7",
      "input.value": user,
    },
  },
  async (agent) => {
    const messages = [{ role: "user", content: user }];
    const first = await client.chat.completions.create({ model: "scripted-model", messages, tools });
    const call = first.choices[0].message.tool_calls[0];
    messages.push(first.choices[0].message);
    const result = await tracer.startActiveSpan(
      call.function.name,
      {
        attributes: {
          "openinference.span.kind": "TOOL",
          "tool.name": call.function.name,
          "tool_call.id": call.id,
          "input.value": call.function.arguments,
        },
      },
      async (span) => {
        const output = JSON.stringify({ temp_c: 19, sky: "sunny" });
        span.setAttribute("output.value", output);
        span.end();
        return output;
      },
    );
    messages.push({ role: "tool", tool_call_id: call.id, content: result });
    const second = await client.chat.completions.create({ model: "scripted-model", messages, tools });
    agent.setAttribute("output.value", second.choices[0].message.content);
    agent.end();
  },
);
await provider.forceFlush();
await endpoint.close();
const body = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans()));
const out = new URL("../../examples/sessions/openinference.otlp.json", import.meta.url);
writeFileSync(out, `${JSON.stringify(JSON.parse(body), null, 1)}\n`);
console.log(`wrote ${out}: ${exporter.getFinishedSpans().length} spans`);
