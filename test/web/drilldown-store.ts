// A store for the drill-down and comparison tests, from the ensemble example: two persona evaluations of Dov
// and Inés (adherence) judged by hand-written fixtures, the first made the baseline; in the second Dov's
// adherence falls three points (one verdict to 0) and one of Inés's verdicts errors (no fixture for it).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { evaluatePersonas } from "../../src/personas/index.ts";
import type { Store } from "../../src/store/index.ts";

const TRANSCRIPT = "examples/ensemble/transcript.json";
const PROPOSITIONS = "examples/ensemble/propositions";
export const FIXTURES = JSON.parse(readFileSync("examples/ensemble/judge-fixtures.json", "utf8"));
export const MESSAGES = JSON.parse(readFileSync(TRANSCRIPT, "utf8")).messages as {
  id: string;
  sender: string;
  text: string;
}[];
export const M02 = MESSAGES.find((m) => m.id === "m02")!.text;
export const LONE_LOW = "LONE LOW VERDICT: m36 reads like a notice pinned to a wall.";

/** The example's verdicts, and the second evaluation's: Dov's adherence three points lower, one verdict at 0. */
export function writeFixtures(folder: string): { a: string; b: string } {
  const a = join(folder, "a.judge-fixtures.json");
  writeFileSync(a, JSON.stringify(FIXTURES));
  const lowered = FIXTURES.verdicts.map(
    (v: { agent_id?: string; dimension: string; proposition_id: string; score?: number }) =>
      v.agent_id === "dov" && v.dimension === "adherence" && typeof v.score === "number"
        ? {
            ...v,
            score: Math.max(
              0,
              Math.min(
                9,
                v.score +
                  (v.proposition_id === "dov-flat-delivery" || v.proposition_id === "breaks-character"
                    ? 3
                    : -3),
              ),
            ),
          }
        : v,
  );
  const m36 = lowered.findIndex(
    (v: { proposition_id: string; message_id?: string }) =>
      v.proposition_id === "dov-warm-showman" && v.message_id === "m36",
  );
  lowered[m36] = { ...lowered[m36], score: 0, reasoning: LONE_LOW };
  // Inés's persona-knowledge given message by message, but for m11: there the judge fails (no verdict to replay).
  const knowledge = lowered.findIndex(
    (v: { agent_id?: string; proposition_id: string; message_id?: string }) =>
      v.agent_id === "ines" && v.proposition_id === "persona-knowledge" && !v.message_id,
  );
  const [general] = lowered.splice(knowledge, 1);
  for (const m of MESSAGES)
    if (m.sender === "ines" && m.id !== "m11") lowered.push({ ...general, message_id: m.id });
  const b = join(folder, "b.judge-fixtures.json");
  writeFileSync(b, JSON.stringify({ ...FIXTURES, verdicts: lowered }));
  return { a, b };
}

/** Two evaluations of Dov and Inés (adherence), the first made the baseline; one of Inés's verdicts errored in the second. */
export async function buildDrilldownStore(s: Store, folder: string) {
  const fixtures = writeFixtures(folder);
  const evaluate = (file: string) =>
    evaluatePersonas({
      transcript: TRANSCRIPT,
      propositions: PROPOSITIONS,
      dimensions: ["adherence"],
      agents: ["dov", "ines"],
      judge: `fixtures:${file}`,
      store: s,
    });
  const first = await evaluate(fixtures.a);
  const second = await evaluate(fixtures.b);
  const runOf = (result: typeof first, agent: string) =>
    result.runs.find((r) => r.agent_id === agent)!.run_id;
  const ids = {
    dovA: runOf(first, "dov"),
    inesA: runOf(first, "ines"),
    dovB: runOf(second, "dov"),
    inesB: runOf(second, "ines"),
  };
  await s.runs.markBaseline(ids.dovA);
  await s.runs.markBaseline(ids.inesA);
  return ids;
}
