// The rubric's bands of the 0–9 claim score, over which calibration's confusion matrix is counted.

/** The bands' labels, lowest first: 0 | 1–3 | 4–5 | 6–8 | 9. */
export const SCORE_BANDS = ["0", "1–3", "4–5", "6–8", "9"] as const;

export type ScoreBand = (typeof SCORE_BANDS)[number];

const BAND_OF_SCORE = [0, 1, 1, 1, 2, 2, 3, 3, 3, 4] as const;

/** The index in SCORE_BANDS of an integer score 0–9. */
export function bandIndex(score: number): number {
  return BAND_OF_SCORE[score]!;
}
