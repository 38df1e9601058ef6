// The drift result `dramaturg.drift/v1`: per persona, the stability at each probed turn (the share of
// probes passed over seeds × probes, with Wilson's 95 % interval), the first turn below the bar, the same
// per probe kind, and every check with the answer it judged. One zod schema; the same inputs give the same bytes.
import { z } from "zod";
import { PROBE_KINDS } from "./probe.ts";

export const DRIFT_FORMAT = "dramaturg.drift/v1";

/** The bar a persona's stability is held to when none is given: 80 % of probes passed. */
export const DEFAULT_DRIFT_BAR = 0.8;

const Count = z.number().int().min(0);

export const DriftPointSchema = z
  .object({
    turn: z.number().int().min(1),
    passed: Count,
    /** Checks that decided (passed or failed); errored judge checks are not among them. */
    checked: Count,
    errored: Count,
    stability: z.number().min(0).max(1).nullable().describe("passed / checked; null when nothing decided"),
    ci_low: z.number().min(0).max(1).nullable().describe("Wilson 95 % interval, lower end"),
    ci_high: z.number().min(0).max(1).nullable(),
  })
  .strict();

export const DriftCheckSchema = z
  .object({
    persona: z.string(),
    seed: z.number().int(),
    turn: z.number().int().min(1),
    probe: z.string(),
    kind: z.enum(PROBE_KINDS),
    passed: z.boolean(),
    detail: z.string(),
    error: z.string().optional(),
    answer: z.string().describe("The target's answer in the fork (untrusted text)"),
  })
  .strict();

export const DriftPersonaResultSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    persona_hash: z.string(),
    curve: z.array(DriftPointSchema),
    first_below_bar: z
      .number()
      .int()
      .nullable()
      .describe("The first probed turn whose stability is under the bar; null when none is"),
    by_kind: z.array(z.object({ kind: z.enum(PROBE_KINDS), curve: z.array(DriftPointSchema) }).strict()),
  })
  .strict();

export const DriftResultSchema = z
  .object({
    format: z.literal(DRIFT_FORMAT),
    turns: z.number().int().min(2),
    probed_turns: z.array(z.number().int()),
    seeds: z.array(z.number().int()),
    bar: z.number().min(0).max(1),
    partner: z.enum(["self-chat", "simulated-user", "custom"]),
    probes: z
      .object({
        source: z.string().describe("built-in, or the probe file as given"),
        count: Count,
        hash: z.string(),
      })
      .strict(),
    personas: z.array(DriftPersonaResultSchema),
    calls: z
      .object({
        target: Count.describe("The target's replies in the main conversations and its answers in the forks"),
        partner: Count.describe("The partner's lines (in self-chat, requests to the target too)"),
        judge: Count.describe("Checks asked of the judge (judge propositions)"),
      })
      .strict(),
    checks: z.array(DriftCheckSchema),
  })
  .strict();

export type DriftPoint = z.infer<typeof DriftPointSchema>;
export type DriftCheck = z.infer<typeof DriftCheckSchema>;
export type DriftPersonaResult = z.infer<typeof DriftPersonaResultSchema>;
export type DriftResult = z.infer<typeof DriftResultSchema>;

/** z for a two-sided 95 % interval. */
const Z95 = 1.959963984540054;

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/**
 * Wilson's score interval for `passed` of `n` (closed form, no library needed): it stays inside [0, 1] and
 * is not degenerate at 0 or n, unlike the normal approximation. Checks are treated as independent trials.
 */
export function wilsonInterval(passed: number, n: number, z = Z95): [number, number] {
  if (n === 0) return [0, 1];
  const p = passed / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** One probed turn's point from its checks. */
export function pointOf(turn: number, checks: readonly Pick<DriftCheck, "passed" | "error">[]): DriftPoint {
  const decided = checks.filter((c) => c.error === undefined);
  const passed = decided.filter((c) => c.passed).length;
  const checked = decided.length;
  const [low, high] = wilsonInterval(passed, checked);
  return {
    turn,
    passed,
    checked,
    errored: checks.length - checked,
    stability: checked ? round4(passed / checked) : null,
    ci_low: checked ? round4(low) : null,
    ci_high: checked ? round4(high) : null,
  };
}

/** The first point under the bar (exact integers: passed < bar × checked), or null. */
export function firstBelowBar(curve: readonly DriftPoint[], bar: number): number | null {
  return curve.find((p) => p.checked > 0 && p.passed < bar * p.checked)?.turn ?? null;
}
