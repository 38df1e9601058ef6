// A store with a little of everything the API lists, made through the store's own repositories: agents
// with completed runs and verdicts, gate checks, and a conversation result (hand-written fixture).
import { readFileSync } from "node:fs";
import type { Store } from "../../src/store/index.ts";
import { ROOT } from "../cli/run-cli.ts";

export const AGENTS = ["marta", "bob"] as const;

const tick = () => new Promise((resolve) => setTimeout(resolve, 3));

/** One evaluation with, per agent, `runs` completed runs (adherence, and fluency on every other run). */
export async function seedStore(
  store: Store,
  { runs = 3 } = {},
): Promise<{ runIds: string[]; conversationId: string }> {
  await store.agents.upsert(
    AGENTS.map((id) => ({ id, name: id[0]!.toUpperCase() + id.slice(1), persona: `${id}, a harbour pilot` })),
  );
  const evaluation = await store.evaluations.create({ kind: "persona", source: "seed" });
  await store.evaluations.start(evaluation.id);
  const runIds: string[] = [];
  for (let i = 0; i < runs; i++)
    for (const agent of AGENTS) {
      await tick(); // distinct creation times, so "newest first" is well defined
      const dimensions = i % 2 === 0 ? ["adherence"] : ["adherence", "fluency"];
      const run = await store.runs.create({
        agent_id: agent,
        evaluation_id: evaluation.id,
        dimensions,
        sample_size: 4,
      });
      await store.runs.start(run.id);
      await store.scores.write([
        {
          evaluation_id: evaluation.id,
          evaluation_run_id: run.id,
          dimension: "adherence",
          proposition_id: "stays-in-role",
          agent_id: agent,
          message_id: `message-${i}`, // a verdict's key is unique in its evaluation: one message per run
          trial: 1,
          status: "ok",
          score: 6 + i,
          raw_score: 6 + i,
          reasoning: `${agent} keeps to the pilot's voice`,
        },
      ]);
      await store.runs.complete(run.id, {
        overall_score: 6 + i,
        dimension_scores: Object.fromEntries(
          dimensions.map((d) => [d, { score: 6 + i, judged: 1, errored: 0 }]),
        ),
      });
      runIds.push(run.id);
    }
  await store.evaluations.complete(evaluation.id);
  const gate = (score: number) => ({ score, reasoning: "hand-written", passed: score >= 7 });
  await store.corrections.add([
    {
      agent_id: "marta",
      original_text: "Aye.",
      dimension_scores: { adherence: gate(8) },
      attempt_number: 1,
      outcome: "passed",
    },
    {
      agent_id: "bob",
      original_text: "Hm.",
      corrected_text: "Hmm, right.",
      dimension_scores: { fluency: gate(4) },
      attempt_number: 2,
      outcome: "corrected",
    },
    {
      agent_id: "marta",
      original_text: "No.",
      dimension_scores: { fluency: gate(3) },
      attempt_number: 3,
      outcome: "forced_through",
    },
  ]);
  // Its agent is the job's target.chatbot, as runConversation stores it.
  const conversation = await store.evaluations.create({
    kind: "conversation",
    source: "refund-desk.yml",
    agents: ["refund-bot"],
  });
  await store.evaluations.start(conversation.id);
  await store.evaluations.complete(conversation.id, {
    result: JSON.parse(readFileSync(`${ROOT}test/fixtures/server/conversation-result.json`, "utf8")),
  });
  return { runIds, conversationId: conversation.id };
}
