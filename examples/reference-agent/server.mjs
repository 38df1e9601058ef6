#!/usr/bin/env node
// Runs the reference agent for a person: `node examples/reference-agent/server.mjs --model-url URL`.
// It loads agent.ts through tsx (as bin/dramaturg.js loads the CLI), so it runs from a clone after npm ci.
import { parseArgs } from "node:util";
import { register } from "tsx/esm/api";

register();
const { startReferenceAgent } = await import("./agent.ts");

const { values } = parseArgs({
  options: {
    port: { type: "string", default: process.env.REFERENCE_AGENT_PORT ?? "8081" },
    "model-url": { type: "string", default: process.env.REFERENCE_AGENT_MODEL_URL },
    model: { type: "string", default: process.env.REFERENCE_AGENT_MODEL ?? "gpt-4o-mini" },
    "latency-ms": { type: "string", default: "0" },
    "fail-writes": { type: "boolean", default: process.env.REFERENCE_AGENT_FAIL_WRITES === "1" },
    help: { type: "boolean", default: false },
  },
});
if (values.help || !values["model-url"]) {
  console.error(
    [
      "usage: node examples/reference-agent/server.mjs --model-url URL [--model NAME] [--port 8081]",
      "                                               [--latency-ms N] [--fail-writes]",
      "  --model-url   an OpenAI-compatible server's base URL, e.g. https://api.openai.com/v1 or",
      "                http://127.0.0.1:11434/v1 (Ollama); the key is read from OPENAI_API_KEY",
      "  --fail-writes the tools answer as if they wrote, and write nothing",
    ].join("\n"),
  );
  process.exit(values.help ? 0 : 2);
}
const agent = await startReferenceAgent({
  port: Number(values.port),
  modelUrl: values["model-url"],
  model: values.model,
  latencyMs: Number(values["latency-ms"]),
  failWrites: values["fail-writes"],
});
console.error(
  `reference agent on ${agent.url}: chat ${agent.url}/v1/chat/completions, state ${agent.url}/state?user=ID, reset POST ${agent.url}/reset?user=ID${values["fail-writes"] ? " (writes nothing)" : ""}`,
);
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => agent.close());
