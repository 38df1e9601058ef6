// What a benchmark reports to bench/run.ts: its figures (each with a target or for information) and the
// details kept in bench/out/results.json, with the number format and the progress line they all use.

/** One reported figure; a figure with a target passes or fails, one without is for information. */
export interface Check {
  metric: string;
  value: string;
  target?: string;
  pass?: boolean;
}

/** A benchmark's figures and the details results.json keeps of it. */
export interface Outcome {
  checks: Check[];
  details: Record<string, unknown>;
}

/** A number with thousands separators and exactly `digits` decimals, as every figure is printed. */
export const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** A progress line, on stderr so that stdout stays the report. */
export const log = (text: string) => process.stderr.write(`${text}\n`);
