// Scripted replies for the fake OpenAI-compatible server, so the reference agent's model and the simulated
// user run offline: the agent's model answers by rules on the user's last message (a tool call, then a
// reply), the user says its lines in order. Both read only the request, so passes and jobs can run at once.
import { readFileSync } from "node:fs";
import { z } from "zod";
import { type FakeResponder, messageText } from "../../src/testing/index.ts";

const ScriptSchema = z
  .object({
    note: z.string().optional(),
    user: z
      .array(z.union([z.string(), z.object({ withoutFacts: z.string(), withFacts: z.string() }).strict()]))
      .min(1)
      .describe("The simulated user's messages after the greeting, in order; a pair where the passes differ"),
    agent: z
      .array(
        z
          .object({
            when: z.string().describe("A case-insensitive regular expression on the user's last message"),
            call: z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()) }).optional(),
            reply: z.string(),
          })
          .strict(),
      )
      .describe("How the agent's model answers: the first rule that matches; its tool call, then its reply"),
    fallback: z.string().describe("The agent's reply when no rule matches"),
  })
  .strict();

export type ConversationScript = z.infer<typeof ScriptSchema>;

export function loadConversationScript(file: string): ConversationScript {
  const parsed = ScriptSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${file}: ${issue.path.join(".")}: ${issue.message}`);
  }
  return parsed.data;
}

/** The agent's model: the matching rule's tool call first, then (after the tool's result) its reply. */
export function agentModelResponder(script: ConversationScript): FakeResponder {
  const rules = script.agent.map((r) => ({ ...r, pattern: new RegExp(r.when, "i") }));
  return (request) => {
    const lastUser = request.messages.findLast((m) => m.role === "user");
    const rule = rules.find((r) => r.pattern.test(lastUser ? messageText(lastUser) : ""));
    if (!rule) return script.fallback;
    if (!rule.call || request.messages.at(-1)?.role === "tool") return rule.reply;
    return { tool_calls: [rule.call] };
  };
}

/**
 * The simulated user: the line after as many as it has said (the greeting counts as the first), read from
 * the conversation in its prompt; the pass with facts is the one whose instructions list them.
 */
export function simulatedUserResponder(script: ConversationScript): FakeResponder {
  return (request) => {
    const prompt = request.messages.map(messageText).join("\n");
    const said = prompt.match(/^you: /gm)?.length ?? 1;
    const line = script.user[Math.min(said - 1, script.user.length - 1)]!;
    if (typeof line === "string") return line;
    return prompt.includes("<facts>") ? line.withFacts : line.withoutFacts;
  };
}
