// The second part of a validation, where people gave reasons (TinyTroupe's `Explanation`): do the simulated
// people give the reasons real people give? The judge lists each side's themes, batch by batch (merged when
// there are several batches), then which simulated themes mean the same as a real one. The figures are the
// real themes the simulation reproduces (coverage) and the overlap of the two sets (Jaccard). Reasons are
// untrusted text: they reach the judge only inside its delimited trajectory block, one per line.
import { z } from "zod";
import type { Verdict } from "../core/index.ts";
import type { Judge, JudgeRequest } from "../judge/index.ts";

/** Reasons listed in one judge request (one batch of a side). */
export const REASON_BATCH = 40;

/** The verdict key's dimension, and the proposition ids a fixture file answers (`channel` is the question). */
export const REASON_THEMES_DIMENSION = "reason_themes";

export const ReasonThemesSchema = z
  .object({
    question: z.string(),
    real: z.object({ reasons: z.number().int(), themes: z.array(z.string()) }).strict(),
    simulated: z.object({ reasons: z.number().int(), themes: z.array(z.string()) }).strict(),
    shared: z.array(z.string()).describe("the simulated themes that mean the same as a real one"),
    coverage: z.number().nullable().describe("shared ÷ real themes: how much of what people said comes back"),
    jaccard: z.number().nullable().describe("shared ÷ (real + simulated − shared) themes"),
    judge_calls: z.number().int(),
    errored: z.number().int().describe("judge requests that failed: their figures are null"),
  })
  .strict();
export type ReasonThemes = z.infer<typeof ReasonThemesSchema>;

type Side = "real" | "simulated";
const WHO: Record<Side, string> = { real: "Real people's", simulated: "Simulated people's" };

function request(
  question: string,
  proposition: string,
  trial: number,
  claim: string,
  title: string,
  text: string,
): JudgeRequest {
  return {
    items: [
      {
        key: { dimension: REASON_THEMES_DIMENSION, proposition_id: proposition, channel: question, trial },
        kind: "count",
        claim,
      },
    ],
    context: { trajectory: { title, text } },
    doubleCheck: false,
  };
}

const listed = (lines: readonly string[]) =>
  lines.map((l) => `- ${l.replace(/\s+/g, " ").trim()}`).join("\n");

/** One batch's request: the distinct themes of its reasons. */
export function themesRequest(
  question: string,
  side: Side,
  batch: readonly string[],
  index: number,
  batches: number,
): JudgeRequest {
  return request(
    question,
    `${side}-themes`,
    index + 1,
    "List the distinct reasons (themes) the answers below give, each named as a short phrase of a few words; name a theme once however many answers give it, and leave out answers that give no reason.",
    `${WHO[side]} reasons for "${question}"${batches > 1 ? ` (batch ${index + 1} of ${batches})` : ""}, one answer per line`,
    listed(batch),
  );
}

/** The themes of a side's batches merged: those meaning the same named once. */
export function mergeRequest(question: string, side: Side, themes: readonly string[]): JudgeRequest {
  return request(
    question,
    `${side}-themes-merged`,
    1,
    "The themes below were listed batch by batch from the same people's answers. List the distinct themes, naming once those that mean the same.",
    `${WHO[side]} themes for "${question}", one per line`,
    listed(themes),
  );
}

/** Which simulated themes mean the same as a real one. */
export function sharedRequest(
  question: string,
  real: readonly string[],
  simulated: readonly string[],
): JudgeRequest {
  return request(
    question,
    "shared-themes",
    1,
    "List each theme of the simulated list that means the same as a theme of the real list, named as the real list names it.",
    `Themes for "${question}": the real list, then the simulated list`,
    `Real:\n${listed(real)}\n\nSimulated:\n${listed(simulated)}`,
  );
}

/**
 * Compares the themes of the two sides' reasons through the judge. A failed request is counted (`errored`)
 * and leaves the figures it feeds null: never a guessed overlap.
 */
export async function compareReasonThemes({
  question,
  real,
  simulated,
  judge,
  signal,
}: {
  question: string;
  real: readonly string[];
  simulated: readonly string[];
  judge: Judge;
  signal?: AbortSignal;
}): Promise<ReasonThemes> {
  let calls = 0;
  let errored = 0;
  const ask = async (r: JudgeRequest): Promise<string[] | undefined> => {
    const response = await judge.judge(r, { signal });
    calls += response.calls;
    const verdict: Verdict = response.verdicts[0]!;
    if (!verdict.ok) {
      errored++;
      return undefined;
    }
    return [...(verdict.ideas ?? [])];
  };
  const themesOf = async (side: Side, reasons: readonly string[]) => {
    const batches: string[][] = [];
    for (let i = 0; i < reasons.length; i += REASON_BATCH) batches.push(reasons.slice(i, i + REASON_BATCH));
    const lists = await Promise.all(
      batches.map((b, i) => ask(themesRequest(question, side, b, i, batches.length))),
    );
    if (lists.some((l) => l === undefined)) return undefined;
    if (lists.length <= 1) return lists[0] ?? [];
    return ask(mergeRequest(question, side, lists.flat() as string[]));
  };
  const given = (reasons: readonly string[]) => reasons.filter((r) => r.trim() !== "");
  const [r, s] = [given(real), given(simulated)];
  const [realThemes, simulatedThemes] = await Promise.all([themesOf("real", r), themesOf("simulated", s)]);
  const shared =
    realThemes && simulatedThemes && realThemes.length > 0 && simulatedThemes.length > 0
      ? await ask(sharedRequest(question, realThemes, simulatedThemes))
      : realThemes && simulatedThemes
        ? []
        : undefined;
  const n = shared?.length;
  const union = n === undefined ? undefined : (realThemes?.length ?? 0) + (simulatedThemes?.length ?? 0) - n;
  return {
    question,
    real: { reasons: r.length, themes: realThemes ?? [] },
    simulated: { reasons: s.length, themes: simulatedThemes ?? [] },
    shared: shared ?? [],
    coverage: n === undefined || !realThemes?.length ? null : Math.min(1, n / realThemes.length),
    jaccard: union === undefined || union <= 0 ? null : Math.min(1, n! / union),
    judge_calls: calls,
    errored,
  };
}

/** The themes compared, as lines of the table and Markdown. */
export function reasonThemesLines(t: ReasonThemes): string[] {
  const pct = (x: number | null) => (x === null ? "–" : `${Math.round(x * 100)} %`);
  return [
    `reasons for ${t.question}: ${t.real.themes.length} real theme(s) from ${t.real.reasons} reasons, ${t.simulated.themes.length} simulated from ${t.simulated.reasons}; ${t.shared.length} shared — coverage ${pct(t.coverage)}, overlap (Jaccard) ${pct(t.jaccard)}${t.errored ? `; ${t.errored} judge request(s) failed` : ""}`,
    `  real only: ${t.real.themes.filter((x) => !t.shared.includes(x)).join("; ") || "–"}`,
    `  shared: ${t.shared.join("; ") || "–"}`,
  ];
}
