// Why verdicts errored, grouped: "38 × the judge answered a claim id it was not given", with one full message
// as an example, so a run whose verdicts all failed says why instead of only that they did.
import { compareCodeUnits } from "./code-unit-order.ts";
import { type Verdict, verdictKeyString } from "./verdict.ts";

/** Errored verdicts that share one reason: the error's name and its message without the variable parts. */
export interface ErrorReason {
  /** The error's class name (`JudgeError`, `MissingVerdictError`…). */
  name: string;
  /** The message with ids, verdict keys, quoted values, numbers and any detail after the first ": " left out. */
  reason: string;
  /** Errored verdicts with this name and reason. */
  count: number;
  /** The full message of the group's errored verdict whose key sorts first (not the first to arrive). */
  example: string;
}

// A verdict key as verdictKeyString writes it ("adherence/style agent=marta message=m3 trial=1").
const VERDICT_KEY = /\S+\/\S+(?: (?:agent|channel|message)=\S+)* trial=\d+/g;
// A quoted value, or a comma-separated list of them, so "'id ge', 'id x'" and "'a'" read the same. A quote
// touching a letter is an apostrophe ("the judge's answer"), not a quote.
const QUOTE = `(?<!\\w)(?:"[^"]*"|'[^']*'|\`[^\`]*\`|“[^”]*”)(?!\\w)`;
const QUOTED = new RegExp(`${QUOTE}(?:\\s*,\\s*${QUOTE})*`, "g");
// Numbers, except an HTTP status: a 429 and a 500 are different reasons, a 60000 and a 30000 ms timeout not.
const NUMBER = /(?<!HTTP )(?<![\w.])\d+(?:\.\d+)?(?!\w|\.\d)/g;

/**
 * The reason text of an error message: what stays the same across the verdicts that failed the same way.
 * Verdict keys become `<key>`, quoted values `…`, numbers `N` (HTTP statuses stay), and the detail after the
 * first ": " (a provider's response text, a validator's issue list) is left out, by the convention of our
 * messages that the summary comes first. Grouping is by text because an errored verdict, once stored, is
 * only its name and message; it decides nothing, it only groups what the reports show.
 */
export function errorReason(message: string): string {
  const masked = message.replace(VERDICT_KEY, "<key>").replace(QUOTED, "…");
  const colon = masked.indexOf(": ");
  const head = colon > 0 ? masked.slice(0, colon) : masked;
  return head.replace(NUMBER, "N").replace(/\s+/g, " ").trim() || "unknown error";
}

/**
 * The reasons of errored verdicts taken one at a time: {@link summarizeErrors} without holding the verdicts.
 * What it reports does not depend on the order the verdicts came in (a resume, any concurrency).
 */
export class ErrorReasonTally {
  private readonly groups = new Map<string, ErrorReason & { exampleKey: string }>();

  add(verdict: Verdict): void {
    if (verdict.ok) return;
    const { name, message } = verdict.error;
    const reason = errorReason(message);
    const group = `${name}\u0000${reason}`;
    const key = verdictKeyString(verdict.key);
    const found = this.groups.get(group);
    if (!found) {
      this.groups.set(group, { name, reason, count: 1, example: message, exampleKey: key });
      return;
    }
    found.count++;
    const order = compareCodeUnits(key, found.exampleKey) || compareCodeUnits(message, found.example);
    if (order < 0) {
      found.example = message;
      found.exampleKey = key;
    }
  }

  /** Most frequent first, ties by name and reason. */
  reasons(): ErrorReason[] {
    return [...this.groups.values()]
      .map(({ exampleKey: _, ...g }) => g)
      .sort(
        (a, b) =>
          b.count - a.count || compareCodeUnits(a.name, b.name) || compareCodeUnits(a.reason, b.reason),
      );
  }
}

/**
 * The distinct reasons the errored verdicts among `verdicts` failed for, most frequent first (ties by name
 * and reason), each with its count and the full message of the verdict whose key sorts first. Empty when
 * none erred. The same verdicts in any order give the same reasons.
 */
export function summarizeErrors(verdicts: Iterable<Verdict>): ErrorReason[] {
  const tally = new ErrorReasonTally();
  for (const verdict of verdicts) tally.add(verdict);
  return tally.reasons();
}

/** Options of {@link formatErrorReasons}. */
export interface FormatErrorReasonsOptions {
  /** Most reasons listed; the rest are summed into one closing line. Default 5. */
  limit?: number;
  /** Longest example shown, in characters; a longer one is cut with "…". Default 200. */
  exampleLength?: number;
}

/**
 * Plain-text lines for error reasons, one per reason: `38 × <reason>  e.g. <example>` (no example when it
 * says nothing the reason does not), then `… and N more in K other reasons` past the limit.
 */
export function formatErrorReasons(
  reasons: readonly ErrorReason[],
  { limit = 5, exampleLength = 200 }: FormatErrorReasonsOptions = {},
): string[] {
  const lines = reasons.slice(0, limit).map((r) => {
    const example = oneLine(r.example);
    const shown = example.length > exampleLength ? `${example.slice(0, exampleLength)}…` : example;
    return `${r.count} × ${r.reason}${example === r.reason ? "" : `  e.g. ${shown}`}`;
  });
  const rest = reasons.slice(limit);
  if (rest.length > 0) {
    const count = rest.reduce((sum, r) => sum + r.count, 0);
    lines.push(`… and ${count} more in ${rest.length} other reason${rest.length === 1 ? "" : "s"}`);
  }
  return lines;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
