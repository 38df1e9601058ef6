// Micro benchmark: verdict rows per second through the ScoreWriter into an in-memory PGlite.
// The product must sustain 2,000 verdicts/s end to end; the store's share must be far above that.
import { openStore, type ScoreInput, type Store } from "../src/store/index.ts";
import { openPgliteStore } from "../src/store/open-sql-store.ts";

/**
 * Writes `rows` score rows through the writer and returns rows per second (opening not timed), into a
 * store at `location`, by default an in-memory PGlite (memory:// has no database, and the SQL path is
 * what this measures).
 */
export async function benchStoreWrites(rows = 20_000, location?: string): Promise<number> {
  const store = location === undefined ? await openPgliteStore(undefined) : await openStore(location);
  try {
    const ids = await benchRun(store, rows);
    const writer = store.scores.writer();
    const started = performance.now();
    for (let i = 0; i < rows; i++) {
      const row = benchScoreRow(
        ids,
        i,
        "The agent keeps to its persona: terse, practical, and focused on the kitchen.",
      );
      await writer.write(row);
    }
    await writer.close();
    const seconds = (performance.now() - started) / 1000;
    return rows / seconds;
  } finally {
    await store.close();
  }
}

/** An agent, an evaluation and a run for `rows` benchmark score rows to belong to. */
export async function benchRun(store: Store, rows: number): Promise<{ evaluation: string; run: string }> {
  await store.agents.upsert({ id: "bench-agent", name: "Bench", persona: "A benchmark persona." });
  const evaluation = await store.evaluations.create({ source: "bench" });
  const run = await store.runs.create({
    agent_id: "bench-agent",
    evaluation_id: evaluation.id,
    dimensions: ["adherence"],
    sample_size: rows,
  });
  return { evaluation: evaluation.id, run: run.id };
}

/** The `i`th benchmark score row of a run: 40 propositions a message, scores 0–9 in turn. */
export function benchScoreRow(
  ids: { evaluation: string; run: string },
  i: number,
  reasoning: string,
): ScoreInput {
  return {
    evaluation_id: ids.evaluation,
    evaluation_run_id: ids.run,
    dimension: "adherence",
    proposition_id: `p-${i % 40}`,
    agent_id: "bench-agent",
    message_id: `m-${Math.floor(i / 40)}`,
    trial: 1,
    status: "ok",
    raw_score: i % 10,
    score: i % 10,
    weight: 1,
    reasoning,
  };
}
