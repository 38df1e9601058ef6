// The verdict on one question, which does not stop at the mean. Three findings, each at the level `alpha`:
// - the location differs: Welch's p < alpha (answers with a mean);
// - the distributions differ: χ² p (the Monte-Carlo p when expected counts are small) or KS p < alpha;
// - the spread collapsed: sd ratio < collapse_sd_ratio or entropy ratio < collapse_entropy_ratio, and the
//   distributions differ (a small sample's low sd alone is not evidence).
// Then: location and collapse → different; location alone → shifted; collapse alone → collapsed; the
// distributions differ otherwise → different; else consistent.
import type { ValidationQuestion, ValidationThresholds, Verdict } from "./validation-format.ts";

type Figures = Pick<
  ValidationQuestion,
  "kind" | "real" | "simulated" | "welch" | "chi2" | "ks" | "sd_ratio" | "entropy_ratio"
>;

/** A p-value for a reason: 2 significant digits, scientific below 0.001. */
export function formatP(p: number): string {
  if (p === 0) return "0";
  return p < 0.001 ? p.toExponential(1) : p.toPrecision(2);
}

const f2 = (x: number) => x.toFixed(2);

export function verdictOf(q: Figures, t: ValidationThresholds): { verdict: Verdict; reasons: string[] } {
  const reasons: string[] = [];
  const a = String(t.alpha);

  let location = false;
  if (q.welch) {
    location = q.welch.p < t.alpha;
    reasons.push(
      `means ${f2(q.real.mean!)} (real) and ${f2(q.simulated.mean!)} (simulated): Welch p ${formatP(q.welch.p)} ${location ? "<" : "≥"} ${a}, the location ${location ? "differs" : "agrees"}`,
    );
  }

  let differs = false;
  if (q.chi2) {
    const small = q.chi2.small_expected_cells > 0;
    if (small)
      reasons.push(
        `${q.chi2.small_expected_cells} of ${q.chi2.cells} expected counts are below ${t.small_expected} (least ${f2(q.chi2.min_expected)}): the χ² p ${formatP(q.chi2.p)} is approximate`,
      );
    const mc = q.chi2.monte_carlo;
    const p = mc?.p ?? q.chi2.p;
    const which = mc
      ? `Monte-Carlo χ² p (${mc.samples.toLocaleString("en-US")} tables, seed ${mc.seed})`
      : "χ² p";
    if (p < t.alpha) differs = true;
    reasons.push(`${which} ${formatP(p)} ${p < t.alpha ? "<" : "≥"} ${a}`);
  }
  if (q.ks) {
    if (q.ks.p < t.alpha) differs = true;
    reasons.push(
      `KS D ${f2(q.ks.d)}, p ${formatP(q.ks.p)} (${q.ks.method}) ${q.ks.p < t.alpha ? "<" : "≥"} ${a}`,
    );
  }
  if (q.chi2 || q.ks) reasons.push(differs ? "the distributions differ" : "the distributions agree");

  const low: string[] = [];
  if (q.sd_ratio !== null && q.sd_ratio < t.collapse_sd_ratio)
    low.push(
      `sd ${f2(q.simulated.sd!)} vs ${f2(q.real.sd!)} (ratio ${f2(q.sd_ratio)} < ${t.collapse_sd_ratio})`,
    );
  if (q.entropy_ratio !== null && q.entropy_ratio < t.collapse_entropy_ratio)
    low.push(
      `entropy ${f2(q.simulated.entropy_bits!)} vs ${f2(q.real.entropy_bits!)} bits (ratio ${f2(q.entropy_ratio)} < ${t.collapse_entropy_ratio})`,
    );
  const collapsed = low.length > 0 && differs;
  if (low.length > 0)
    reasons.push(
      `the simulated spread is far below the real one: ${low.join("; ")}${differs ? "" : ", but the distributions do not differ at this sample size"}`,
    );

  if (!q.welch && !q.chi2 && !q.ks) reasons.push("too few answers to test anything");
  const verdict: Verdict =
    location && collapsed
      ? "different"
      : location
        ? "shifted"
        : collapsed
          ? "collapsed"
          : differs
            ? "different"
            : "consistent";
  return { verdict, reasons };
}
