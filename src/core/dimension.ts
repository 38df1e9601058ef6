// The five persona dimensions and what kind of number each yields.

export const PERSONA_DIMENSIONS = [
  "adherence",
  "consistency",
  "fluency",
  "convergence",
  "ideas_quantity",
] as const;
export type PersonaDimension = (typeof PERSONA_DIMENSIONS)[number];

/** Dimensions scored once per agent (0–9). */
export const AGENT_DIMENSIONS = [
  "adherence",
  "consistency",
  "fluency",
] as const satisfies readonly PersonaDimension[];
/** Dimensions scored once per channel: convergence is 0–9 voice divergence, ideas_quantity a count. */
export const ENVIRONMENT_DIMENSIONS = [
  "convergence",
  "ideas_quantity",
] as const satisfies readonly PersonaDimension[];

export function isPersonaDimension(value: string): value is PersonaDimension {
  return (PERSONA_DIMENSIONS as readonly string[]).includes(value);
}

/** What the judge returns for a dimension: a 0–9 score, or a list of distinct ideas (a count). */
export function verdictKindOf(dimension: PersonaDimension): "score" | "count" {
  return dimension === "ideas_quantity" ? "count" : "score";
}
