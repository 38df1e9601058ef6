// A session's tool calls matched against the calls expected of it, in one of five modes (the modes agentevals
// offers for a trajectory, here per agent and with per-tool rules for the arguments):
//   strict     the same calls in the same order, no more and no fewer;
//   unordered  the same calls in any order, no more and no fewer;
//   subset     every call made was expected (some expected may be missing);
//   superset   every expected call was made (others may be made too);
//   in-order   the expected calls were made in their order, others between them allowed.
// Two calls match when their tools are the same and their arguments agree by the tool's rule: `exact` (deep
// equality), `ignore` (the tool alone), or a CEL expression over `expected` and `actual` (the arguments). The
// score: precision (matched / made), recall (matched / expected) and F1 of the largest matching the mode allows
// (by position for strict, a common subsequence for in-order, a bipartite matching otherwise); the missing and
// the unexpected calls are findings.
import { celJs, InputError } from "../core/index.ts";

export const MATCH_MODES = ["strict", "unordered", "subset", "superset", "in-order"] as const;
export type MatchMode = (typeof MATCH_MODES)[number];

/** How two calls' arguments are compared: deep equality, not at all, or a CEL expression (`expected`, `actual`). */
export type ArgumentRule = "exact" | "ignore" | { cel: string };

export interface ExpectedCall {
  tool_name: string;
  parameters?: Record<string, unknown>;
}

export interface MadeCall {
  tool_name: string;
  parameters: Record<string, unknown>;
}

export interface TrajectoryMatchOptions {
  mode: MatchMode;
  /** The rule for every tool's arguments (default `exact`). */
  arguments?: ArgumentRule;
  /** A tool's own rule, over `arguments`. */
  tools?: Record<string, { arguments?: ArgumentRule }>;
}

export interface TrajectoryMatch {
  mode: MatchMode;
  /** Whether the calls satisfy the mode. */
  passed: boolean;
  expected: number;
  made: number;
  /** Pairs [expected index, made index] of the matching the score counts, in expected order. */
  matched: [number, number][];
  precision: number | null;
  recall: number | null;
  f1: number | null;
  /** Expected calls with no match (their indexes). */
  missing: number[];
  /** Made calls with no match (their indexes). */
  unexpected: number[];
  /** The tools of the missing calls, in their order. */
  missing_tools: string[];
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every(
      (k) =>
        Object.hasOwn(b, k) &&
        deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}

/** The function that tells whether an expected call and a made one match, each CEL rule parsed once. */
function callMatcher(options: TrajectoryMatchOptions): (e: ExpectedCall, m: MadeCall) => boolean {
  const compiled = new Map<string, ReturnType<ReturnType<typeof celJs>["parse"]>>();
  const rule = (tool: string): ArgumentRule =>
    options.tools?.[tool]?.arguments ?? options.arguments ?? "exact";
  const evaluate = (expression: string, expected: unknown, actual: unknown): boolean => {
    let program = compiled.get(expression);
    if (!program) {
      try {
        program = celJs().parse(expression);
      } catch (error) {
        throw new InputError(`not a CEL expression: ${(error as Error).message}`, { place: expression });
      }
      compiled.set(expression, program);
    }
    return program({ expected, actual }) === true;
  };
  return (e, m) => {
    if (e.tool_name !== m.tool_name) return false;
    const r = rule(e.tool_name);
    if (r === "ignore" || e.parameters === undefined) return true;
    if (r === "exact") return deepEqual(e.parameters, m.parameters);
    return evaluate(r.cel, e.parameters, m.parameters);
  };
}

/** The largest bipartite matching of expected to made calls (Kuhn's augmenting paths: trajectories are short). */
function bipartite(n: number, k: number, match: (i: number, j: number) => boolean): [number, number][] {
  const edges = Array.from({ length: n }, (_, i) =>
    Array.from({ length: k }, (_, j) => j).filter((j) => match(i, j)),
  );
  const madeTo = new Array<number>(k).fill(-1);
  const augment = (i: number, seen: boolean[]): boolean => {
    for (const j of edges[i]!) {
      if (seen[j]) continue;
      seen[j] = true;
      if (madeTo[j] === -1 || augment(madeTo[j]!, seen)) {
        madeTo[j] = i;
        return true;
      }
    }
    return false;
  };
  for (let i = 0; i < n; i++) augment(i, new Array<boolean>(k).fill(false));
  return madeTo
    .map((i, j) => [i, j] as [number, number])
    .filter(([i]) => i >= 0)
    .sort((a, b) => a[0] - b[0]);
}

/** The longest common subsequence's pairs (expected order kept in the made calls). */
function subsequence(n: number, k: number, match: (i: number, j: number) => boolean): [number, number][] {
  const table = Array.from({ length: n + 1 }, () => new Array<number>(k + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = k - 1; j >= 0; j--)
      table[i]![j] = match(i, j) ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < k) {
    if (match(i, j) && table[i]![j] === table[i + 1]![j + 1]! + 1) pairs.push([i++, j++]);
    else if (table[i + 1]![j]! >= table[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

const ratio = (a: number, b: number): number | null => (b === 0 ? null : a / b);

/** Matches the calls made against the calls expected, in `options.mode`. */
export function matchTrajectory(
  expected: readonly ExpectedCall[],
  made: readonly MadeCall[],
  options: TrajectoryMatchOptions,
): TrajectoryMatch {
  const matches = callMatcher(options);
  const match = (i: number, j: number) => matches(expected[i]!, made[j]!);
  const n = expected.length;
  const k = made.length;
  const { mode } = options;
  const matched =
    mode === "strict"
      ? Array.from({ length: Math.min(n, k) }, (_, i) => [i, i] as [number, number]).filter(([i, j]) =>
          match(i, j),
        )
      : mode === "in-order"
        ? subsequence(n, k, match)
        : bipartite(n, k, match);
  const count = matched.length;
  const passed =
    mode === "strict" || mode === "unordered"
      ? count === n && count === k
      : mode === "subset"
        ? count === k
        : count === n;
  const precision = ratio(count, k);
  const recall = ratio(count, n);
  const f1 =
    precision === null || recall === null
      ? null
      : precision + recall === 0
        ? 0
        : (2 * precision * recall) / (precision + recall);
  const expectedMatched = new Set(matched.map(([i]) => i));
  const madeMatched = new Set(matched.map(([, j]) => j));
  return {
    mode,
    passed,
    expected: n,
    made: k,
    matched,
    precision,
    recall,
    f1,
    missing: expected.map((_, i) => i).filter((i) => !expectedMatched.has(i)),
    unexpected: made.map((_, j) => j).filter((j) => !madeMatched.has(j)),
    missing_tools: expected.filter((_, i) => !expectedMatched.has(i)).map((e) => e.tool_name),
  };
}
