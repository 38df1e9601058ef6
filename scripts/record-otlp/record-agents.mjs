// Records examples/sessions/openai-agents.trace.json: a real trace export of the OpenAI Agents SDK (JS,
// @openai/agents 0.20.0). The SDK's own OpenAITracingExporter sends its batch to a local HTTP server
// instead of api.openai.com, and the body it posted is written as it came; only the model is scripted
// (a Model that returns fixed outputs), so no API is called. Also writes the tools' schemas as the SDK
// gives them to the model (openai-agents.tools.json), which the trace does not carry. Run: npm ci &&
// node record-agents.mjs.
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import {
  Agent,
  BatchTraceProcessor,
  getGlobalTraceProvider,
  OpenAITracingExporter,
  run,
  setTraceProcessors,
  tool,
  Usage,
  withTrace,
} from "@openai/agents";
import { z } from "zod";

// The ingest endpoint, on loopback: it keeps what the exporter posts.
const bodies = [];
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (d) => {
    body += d;
  });
  req.on("end", () => {
    bodies.push(JSON.parse(body));
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const endpoint = `http://127.0.0.1:${server.address().port}/v1/traces/ingest`;
setTraceProcessors([
  new BatchTraceProcessor(new OpenAITracingExporter({ apiKey: "sk-local-capture-only", endpoint })),
]);

/** A model that answers each call with the next of its scripted outputs. */
function scripted(outputs) {
  let n = 0;
  return {
    async getResponse() {
      const output = outputs[n++];
      if (!output) throw new Error("the script has no more outputs");
      return {
        usage: new Usage({ requests: 1, inputTokens: 40, outputTokens: 10, totalTokens: 50 }),
        output,
        responseId: `resp_${n}`,
      };
    },
    getStreamedResponse() {
      throw new Error("not streamed");
    },
  };
}
const callOf = (callId, name, args) => ({
  type: "function_call",
  callId,
  name,
  arguments: JSON.stringify(args),
  status: "completed",
});
const say = (text) => ({
  type: "message",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text }],
});

const billing = new Agent({
  name: "Billing",
  instructions: "You handle refunds and charges.",
  model: scripted([
    [callOf("call_2", "lookup_charges", { order_id: "77" })],
    // An argument the tool does not declare: the SDK drops it, the trace keeps what the model wrote.
    [callOf("call_3", "refund", { charge_id: "c2", reason: "duplicate", notify_customer: true })],
    [say("I found the duplicate charge c2, but the refund failed at the payment provider. I will retry it.")],
  ]),
  tools: [
    tool({
      name: "lookup_charges",
      description: "List the charges of an order",
      parameters: z.object({ order_id: z.string() }),
      execute: async ({ order_id }) =>
        JSON.stringify([
          { id: "c1", order_id },
          { id: "c2", order_id },
        ]),
    }),
    tool({
      name: "refund",
      description: "Refund one charge",
      parameters: z.object({ charge_id: z.string(), reason: z.enum(["duplicate", "fraud", "other"]) }),
      execute: async () => {
        throw new Error("payment provider unavailable");
      },
    }),
  ],
});
const triage = new Agent({
  name: "Triage",
  instructions: "Route the customer to the right agent.",
  model: scripted([
    [callOf("call_1", "classify", { text: "charged twice for order 77" })],
    [callOf("call_h", "transfer_to_Billing", {})],
  ]),
  tools: [
    tool({
      name: "classify",
      description: "Classify a support request",
      parameters: z.object({ text: z.string() }),
      execute: async () => "billing",
    }),
  ],
  handoffs: [billing],
});

await withTrace("Support", () => run(triage, "I was charged twice for order 77."), { groupId: "conv-42" });
await getGlobalTraceProvider().forceFlush();
await new Promise((resolve) => setTimeout(resolve, 200));
server.close();
const data = bodies.flatMap((b) => b.data);
const out = new URL("../../examples/sessions/openai-agents.trace.json", import.meta.url);
writeFileSync(out, `${JSON.stringify({ data }, null, 1)}\n`);
console.log(`wrote ${out}: ${data.length} items in ${bodies.length} post(s)`);
// The trace names the tools but not their schemas: the schemas the SDK sends the model, in OpenAI's form.
const tools = [...triage.tools, ...billing.tools].map((t) => ({
  type: "function",
  function: { name: t.name, description: t.description, parameters: t.parameters },
}));
const toolsOut = new URL("../../examples/sessions/openai-agents.tools.json", import.meta.url);
writeFileSync(toolsOut, `${JSON.stringify(tools, null, 1)}\n`);
console.log(`wrote ${toolsOut}`);
