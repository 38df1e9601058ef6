// One pass of a live conversation: the seeds are sent, the simulated user greets, then user and agent
// take turns until the user says its signoff or `maxTurns` exchanges have passed. Every agent reply is
// timed (the attempt that answered) and every failed attempt counted; an agent that cannot answer ends
// the pass as failed, with what was said so far.
import type { LanguageModel } from "ai";
import type { AgentClient } from "./agent-client.ts";
import { AgentUnavailableError } from "./agent-client.ts";
import type { ConversationJob } from "./job.ts";
import { greetingOf, nextUserMessage, type TranscriptTurn } from "./simulated-user.ts";

export interface PassTranscript {
  /** With the facts available to the simulated user (the second pass) or not. */
  with_facts: boolean;
  turns: (TranscriptTurn & { latency_ms?: number; attempts?: number })[];
  /** The agent's reply times, ms, in order (the greeting's reply included). */
  latencies: number[];
  tool_calls: { name: string; arguments: unknown }[];
  failures: number;
  /** How it ended: the user said the signoff, the turn limit, or the agent could not answer. */
  ended: "signoff" | "max_turns" | "agent_failed";
  error?: string;
}

export interface PassOptions {
  agent: AgentClient;
  userModel: LanguageModel;
  withFacts: boolean;
  /** Chooses the greeting: the same seed, the same greeting. */
  seed: number;
  signal?: AbortSignal;
  /** Called after each exchange (for live progress). */
  onTurn?: (turn: number, of: number) => void;
}

export async function runConversationPass(
  job: ConversationJob,
  options: PassOptions,
): Promise<PassTranscript> {
  const { agent, userModel, withFacts } = options;
  const pass: PassTranscript = {
    with_facts: withFacts,
    turns: [],
    latencies: [],
    tool_calls: [],
    failures: 0,
    ended: "max_turns",
  };
  const failuresBefore = agent.failures;
  try {
    // Seeds first: a text to remember, or a conversation replayed message by message (not scored).
    for (const seed of job.seeds) {
      if ("text" in seed) await agent.seedText(seed.text);
      else for (const m of seed.conversation) if (m.role === "user") await agent.send(m.content);
    }
    let message = greetingOf(job, options.seed);
    for (let exchange = 1; exchange <= job.maxTurns; exchange++) {
      options.signal?.throwIfAborted();
      pass.turns.push({ role: "user", content: message });
      const reply = await agent.send(message);
      pass.turns.push({
        role: "assistant",
        content: reply.text,
        latency_ms: reply.latency_ms,
        attempts: reply.attempts,
      });
      pass.latencies.push(reply.latency_ms);
      if (reply.tool_calls) pass.tool_calls.push(...reply.tool_calls);
      options.onTurn?.(exchange, job.maxTurns);
      const next = await nextUserMessage(userModel, job, { withFacts, signal: options.signal }, pass.turns);
      if (next.done) {
        pass.turns.push({ role: "user", content: next.text });
        pass.ended = "signoff";
        break;
      }
      message = next.text;
    }
  } catch (error) {
    if (!AgentUnavailableError.isInstance(error)) throw error;
    pass.ended = "agent_failed";
    pass.error = error.message;
  }
  pass.failures = agent.failures - failuresBefore;
  return pass;
}
