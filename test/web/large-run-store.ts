// A store with one persona run of many messages (1,000 by default), for the run page's size and its judge
// windows: four agents in two channels, the run judging one of them (Marta) on three adherence propositions
// per message, through evaluatePersonas with a fixture judge whose verdicts are generated from HAND-WRITTEN
// reasonings (below), not the output of any model: varied scores, some reasoning repeated word for word.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TRANSCRIPT_FORMAT, type Transcript } from "../../src/core/index.ts";
import { evaluatePersonas } from "../../src/personas/index.ts";
import type { Store } from "../../src/store/index.ts";
import { fixtureJudge, type HandWrittenVerdict } from "../../src/testing/index.ts";

export const FOCUS_AGENT = "marta";

const AGENTS = [
  { id: FOCUS_AGENT, name: "Marta", persona: { occupation: "ferry dispatcher", style: "terse, dry" } },
  { id: "bob", name: "Bob", persona: { occupation: "harbour master", style: "chatty" } },
  { id: "cleo", name: "Cleo", persona: { occupation: "deckhand", style: "cheerful" } },
  { id: "dai", name: "Dai", persona: { occupation: "café owner", style: "gossipy" } },
];

const LINES = [
  "The 7:40 crossing is held until the fog lifts; tell the passengers in the queue.",
  "Rope on the north pier is frayed again. Somebody logs it or I will.",
  "Gale warning at noon. Second ferry stays in the harbour, no arguments.",
  "Coffee is not a schedule. Be on deck at six.",
  "I checked the chart twice: the reef marker moved in the storm.",
  "As an AI language model I cannot dispatch ferries, but here are some tips.",
  "Tickets for the late boat are sold out; the island run takes the overflow.",
  "The radio is quiet tonight. Quiet is good.",
];
const OTHERS = [
  "Any news on the morning boat?",
  "The café is packed, half of them are waiting for the ferry.",
  "Deck is scrubbed, captain says we can load at nine.",
  "Fog is thick by the lighthouse, I can barely see the bell.",
];

/** A transcript where Marta sends `messages` messages and the three others one each between two of hers. */
export function largeTranscript(messages: number): Transcript {
  const start = Date.parse("2026-03-01T06:00:00Z");
  const list: Transcript["messages"] = [];
  for (let i = 0; i < messages; i++) {
    const other = AGENTS[1 + (i % 3)]!;
    const channel = `channel-${(Math.floor(i / 25) % 2) + 1}`;
    list.push({
      id: `o${i + 1}`,
      sender: other.id,
      channel,
      text: OTHERS[i % OTHERS.length]!,
      at: new Date(start + i * 120_000).toISOString(),
    });
    list.push({
      id: `m${i + 1}`,
      sender: FOCUS_AGENT,
      channel,
      text: `${LINES[(i * 7) % LINES.length]!} (shift ${i + 1})`,
      at: new Date(start + i * 120_000 + 60_000).toISOString(),
    });
  }
  return { format: TRANSCRIPT_FORMAT, agents: AGENTS, messages: list };
}

// The dimension's default set (a folder without one would add the built-in claims, which no fixture answers).
const PROPOSITIONS = `# Three adherence claims for the large-run tests, written for them.
dimension: adherence
include_personas: true
propositions:
  - id: terse-dispatcher
    claim: "{{agent_name}} sounds like a terse, dry ferry dispatcher"
    weight: 1.0
  - id: assistant-voice
    claim: "{{agent_name}} sounds like a generic AI assistant"
    weight: 1.0
    inverted: true
  - id: concrete-orders
    claim: "{{agent_name}} gives concrete orders (times, places, boats)"
    weight: 0.5
`;

// HAND-WRITTEN reasonings, by proposition and by how the message reads; a generated verdict takes one.
const REASONINGS: Record<string, { score: number; reasoning: string }[]> = {
  "terse-dispatcher": [
    { score: 9, reasoning: "Short, flat and practical: exactly the dispatcher of the persona." },
    { score: 8, reasoning: "Dry and to the point, though a little more talkative than she usually is." },
    { score: 6, reasoning: "The order is there but the tone drifts towards small talk." },
    { score: 2, reasoning: "Reads like a help-desk answer, not like Marta at the dispatch window." },
  ],
  "assistant-voice": [
    { score: 0, reasoning: "Nothing in it sounds like an assistant; it is a person giving orders." },
    { score: 1, reasoning: "One polite phrase, otherwise clearly her own voice." },
    { score: 8, reasoning: "'As an AI language model' — the assistant's voice, word for word." },
  ],
  "concrete-orders": [
    { score: 9, reasoning: "A time, a boat and a place: a concrete order." },
    { score: 7, reasoning: "A place and a task, but no time given." },
    { score: 3, reasoning: "A general remark about the weather, nothing anyone could act on." },
  ],
};

/** The generated fixture verdicts: each message's line decides the band, the message's number varies it. */
function verdicts(messages: number): HandWrittenVerdict[] {
  const out: HandWrittenVerdict[] = [];
  for (let i = 0; i < messages; i++) {
    const line = (i * 7) % LINES.length;
    const assistant = line === 5;
    for (const [id, options] of Object.entries(REASONINGS)) {
      const pick =
        id === "assistant-voice"
          ? assistant
            ? 2
            : i % 5 === 0
              ? 1
              : 0
          : assistant
            ? options.length - 1
            : (i + line) % (options.length - 1);
      const { score, reasoning } = options[pick]!;
      // Every thirteenth verdict names its message, so not every reasoning is a repeat of another.
      out.push({
        dimension: "adherence",
        proposition_id: id,
        agent_id: FOCUS_AGENT,
        message_id: `m${i + 1}`,
        score,
        reasoning: i % 13 === 0 ? `${reasoning} (m${i + 1})` : reasoning,
      });
    }
  }
  return out;
}

/** Evaluates Marta's `messages` messages into the store; returns the run's id. */
export async function buildLargeRunStore(
  store: Store,
  folder: string,
  { messages = 1_000 }: { messages?: number } = {},
): Promise<{ runId: string; evaluationId: string }> {
  const propositions = join(folder, "propositions", "adherence");
  mkdirSync(propositions, { recursive: true });
  writeFileSync(join(propositions, "_default.yaml"), PROPOSITIONS);
  const result = await evaluatePersonas({
    transcript: largeTranscript(messages),
    propositions: join(folder, "propositions"),
    dimensions: ["adherence"],
    agents: [FOCUS_AGENT],
    judge: fixtureJudge(verdicts(messages), {
      note: "HAND-WRITTEN reasonings for the large-run tests, assigned to messages by a rule; not the output of any model",
    }),
    store,
    concurrency: 64,
  });
  return { runId: result.runs[0]!.run_id, evaluationId: result.evaluation_id };
}
