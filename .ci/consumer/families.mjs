// A plain-Node user of the installed package beyond persona scores: a multi-agent session analysed with
// its tool calls checked, the action gate around a send function, and the HTTP API from dramaturg/server
// over an in-memory store.
import { analyzeSession, openStore, withActionGate } from "dramaturg";
import { createServerApp } from "dramaturg/server";

const fail = (what, got) => {
  throw new Error(`${what}: ${JSON.stringify(got).slice(0, 400)}`);
};

// A planner that calls a tool only the executor has: one unauthorized_tool finding, no judge needed.
const session = {
  format: "dramaturg.session/v1",
  agents: [
    { id: "planner", tools_available: [] },
    {
      id: "executor",
      tools_available: [
        { name: "refund", parameters_schema: { type: "object", properties: { order: { type: "string" } } } },
      ],
    },
  ],
  turns: [
    {
      user_message: "Refund order 7",
      agent_interactions: [
        {
          agent_id: "planner",
          output: "Refunding.",
          agent_steps: [{ tool_call: { tool_name: "refund", parameters: { order: "7" } } }],
        },
      ],
      final_response: "Done.",
    },
  ],
};
const analysis = await analyzeSession(session, { judge: "none" });
const findings = analysis.analyses[0].tool_validation.map((f) => `${f.agent_id}:${f.type}`);
if (findings.join() !== "planner:unauthorized_tool") fail("session findings", findings);
console.log(`session: ${findings.join()}`);

// The gate: a message that repeats the agent's last one fails the similarity check and is regenerated.
const sent = [];
const send = withActionGate(async (text) => sent.push(text), {
  gate: { config: { gate_similarity_enabled: true } },
  agent: { id: "ines", name: "Ines", persona: { description: "a harbour pilot" } },
  regenerate: () => "Pay the tug, or row her in yourselves.",
});
await send("Tide turns at four. We go then or not at all.");
await send("Tide turns at four. We go then or not at all.");
if (sent[1] !== "Pay the tug, or row her in yourselves.") fail("gate", sent);
console.log(`gate: the repeat was regenerated as "${sent[1]}"`);

// The API over a store.
const store = await openStore("memory://");
try {
  const app = createServerApp({ store });
  const response = await app.request("/api/runs");
  const body = await response.json();
  if (response.status !== 200 || !Array.isArray(body.items ?? body.runs ?? body.data))
    fail("GET /api/runs", { status: response.status, body });
  console.log(`server: GET /api/runs ${response.status}`);
} finally {
  await store.close();
}
