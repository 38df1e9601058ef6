// Records two real OTLP JSON exports of the AI SDK's own telemetry for examples/sessions/: the GenAI
// semantic-convention spans of `@ai-sdk/otel`'s OpenTelemetry integration (AI SDK 7's default) and the
// `ai.*` spans of its LegacyOpenTelemetry integration (AI SDK 6's names). The spans are made by the
// real instrumentation and serialised by OpenTelemetry's own OTLP JSON serializer (the HTTP exporter's);
// only the model is scripted (MockLanguageModelV4), so that no API is called and the run is repeatable.
// Run: npm ci && npm run record (in this folder).
import { writeFileSync } from "node:fs";
import { LegacyOpenTelemetry, OpenTelemetry } from "@ai-sdk/otel";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { generateText, registerTelemetry, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";

const usage = { inputTokens: { total: 50, noCache: 50 }, outputTokens: { total: 12, text: 12 } };
const say = (text) => ({
  content: [{ type: "text", text }],
  finishReason: { unified: "stop", raw: "stop" },
  usage,
  warnings: [],
});
const call = (id, name, input) => ({
  content: [{ type: "tool-call", toolCallId: id, toolName: name, input: JSON.stringify(input) }],
  finishReason: { unified: "tool-calls", raw: "tool_calls" },
  usage,
  warnings: [],
});
const model = (responses) => new MockLanguageModelV4({ modelId: "scripted-model", doGenerate: responses });

const triageTools = {
  classify: tool({
    description: "Classify a support request",
    inputSchema: z.object({ text: z.string() }),
    execute: async () => "billing",
  }),
};
const billingTools = {
  lookup_charges: tool({
    description: "List the charges of an order",
    inputSchema: z.object({ order_id: z.string() }),
    execute: async ({ order_id }) => [
      { id: "c1", order_id, amount: 42.5 },
      { id: "c2", order_id, amount: 42.5 },
    ],
  }),
  refund: tool({
    description: "Refund one charge",
    inputSchema: z.object({ charge_id: z.string(), reason: z.enum(["duplicate", "fraud", "other"]) }),
    execute: async () => {
      throw new Error("payment provider unavailable");
    },
  }),
};

async function conversation(tracer) {
  const turn = (n, work) =>
    tracer.startActiveSpan(
      `support turn ${n}`,
      { attributes: { "gen_ai.conversation.id": "conv-42" } },
      async (span) => {
        try {
          await work();
        } finally {
          span.end();
        }
      },
    );
  await turn(1, async () => {
    const user = "I was charged twice for order 77.";
    await generateText({
      model: model([call("call_1", "classify", { text: user }), say("Passing you to billing.")]),
      system: "You route support requests.",
      prompt: user,
      tools: triageTools,
      stopWhen: stepCountIs(3),
      telemetry: { functionId: "triage" },
    });
    await generateText({
      model: model([
        call("call_2", "lookup_charges", { order_id: "77" }),
        // The model gives a number where the tool wants a string: the SDK rejects it and runs nothing.
        call("call_3", "refund", { charge_id: 2, reason: "duplicate" }),
        call("call_4", "refund", { charge_id: "c2", reason: "duplicate" }),
        say("I found the duplicate charge c2 but the refund failed on the provider's side; I'll retry it."),
      ]),
      system: "You handle billing.",
      prompt: user,
      tools: billingTools,
      stopWhen: stepCountIs(5),
      telemetry: { functionId: "billing" },
    });
  });
  await turn(2, async () => {
    await generateText({
      model: model([say("Not yet: the provider was down. I have queued the refund of 42.50 for charge c2.")]),
      system: "You handle billing.",
      prompt: "Did the refund go through?",
      tools: billingTools,
      telemetry: { functionId: "billing" },
    });
  });
}

async function record(integration, file) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  trace.disable();
  context.disable();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  registerTelemetry(integration());
  await conversation(provider.getTracer("support-app"));
  await provider.forceFlush();
  const body = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans()));
  writeFileSync(file, `${JSON.stringify(JSON.parse(body), null, 1)}\n`);
  console.log(`wrote ${file}: ${exporter.getFinishedSpans().length} spans`);
}

const out = new URL("../../examples/sessions/", import.meta.url);
await record(() => new OpenTelemetry(), new URL("ai-sdk-genai.otlp.json", out));
await record(() => new LegacyOpenTelemetry(), new URL("ai-sdk-legacy.otlp.json", out));
