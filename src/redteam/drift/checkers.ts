// The checkers of a probe's answer: regex, language, word list, JSON field and CEL decide on their own,
// deterministically; a judge proposition asks the judge (the answer delimited as data, never followed).
// The answer is untrusted text: it is matched and parsed, never evaluated (CEL only sees it as a value).

import { celOutcome } from "../../conversations/index.ts";
import { escapeDelimiters } from "../../core/index.ts";
import type { Judge } from "../../judge/index.ts";
import { detectLanguage, wordsOf } from "./language.ts";
import type { Checker, Probe } from "./probe.ts";

/** A checker's decision: passed or not, with a few words on why; `error` when it could not decide. */
export interface CheckOutcome {
  passed: boolean;
  /** What was seen, short: `language fr`, `no match`, `ready = false`. */
  detail: string;
  /** The judge could not give a verdict: the check is left out of the stability, and counted. */
  error?: string;
}

/** A probe's text with the persona's name filled in (`{{agent_name}}`). */
export function fillName(value: string, name: string): string {
  return value.replace(/\{\{\s*agent_name\s*\}\}/g, () => name);
}

/** The name a probe file's examples are checked with. */
const EXAMPLE_NAME = "Alex Morgan";

/**
 * The first of a deterministic probe's examples its checker decides the other way (a pass example it fails,
 * a fail example it passes), as its path in the probe and why; none when all agree.
 */
export function exampleMismatch(probe: Probe): { path: (string | number)[]; message: string } | undefined {
  if (!probe.examples || probe.checker.type === "judge") return undefined;
  for (const key of ["pass", "fail"] as const)
    for (const [i, answer] of probe.examples[key].entries()) {
      const outcome = checkDeterministic(probe.checker, fillName(answer, EXAMPLE_NAME), EXAMPLE_NAME);
      if (outcome.passed !== (key === "pass"))
        return {
          path: ["examples", key, i],
          message: `the checker ${outcome.passed ? "passes" : "fails"} this ${key} example (${outcome.detail}); expected it to ${key}`,
        };
    }
  return undefined;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The answer as JSON: the whole text, else its first `{…}` block (a fenced or chatty answer); or undefined. */
export function answerJson(answer: string): unknown {
  const attempts = [answer.trim(), answer.slice(answer.indexOf("{"), answer.lastIndexOf("}") + 1)];
  for (const attempt of attempts) {
    if (!attempt) continue;
    try {
      return JSON.parse(attempt);
    } catch {}
  }
  return undefined;
}

function at(value: unknown, path: string): { found: boolean; value?: unknown } {
  let here = value;
  for (const key of path.split(".")) {
    if (here === null || typeof here !== "object" || !Object.hasOwn(here, key)) return { found: false };
    here = (here as Record<string, unknown>)[key];
  }
  return { found: true, value: here };
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** Deep equality of JSON values (object keys in any order). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return (
    ka.length === kb.length &&
    ka.every(
      (k, i) => k === kb[i] && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}

/** A deterministic checker's decision on an answer; `name` fills `{{agent_name}}`. */
export function checkDeterministic(
  checker: Exclude<Checker, { type: "judge" }>,
  answer: string,
  name: string,
): CheckOutcome {
  switch (checker.type) {
    case "regex": {
      const pattern = checker.pattern.replace(/\{\{\s*agent_name\s*\}\}/g, () => escapeRegExp(name));
      const found = new RegExp(pattern, checker.flags).test(answer);
      return { passed: found === checker.match, detail: found ? "match" : "no match" };
    }
    case "language": {
      const language = detectLanguage(answer);
      return { passed: language === checker.language, detail: `language ${language ?? "unknown"}` };
    }
    case "words": {
      const text = ` ${wordsOf(answer).join(" ")} `;
      const found = checker.words.filter((w) => text.includes(` ${wordsOf(fillName(w, name)).join(" ")} `));
      const passed =
        checker.mode === "any"
          ? found.length > 0
          : checker.mode === "all"
            ? found.length === checker.words.length
            : found.length === 0;
      return { passed, detail: found.length ? `found ${found.join(", ")}` : "none found" };
    }
    case "json_field": {
      const json = answerJson(answer);
      if (json === undefined) return { passed: false, detail: "not JSON" };
      const field = at(json, checker.path);
      if (!field.found) return { passed: false, detail: `no ${checker.path}` };
      const shown = `${checker.path} = ${JSON.stringify(field.value)?.slice(0, 40)}`;
      const typed = checker.is === undefined || jsonType(field.value) === checker.is;
      const equal = checker.equals === undefined || sameJson(field.value, checker.equals);
      return { passed: typed && equal, detail: shown };
    }
    case "cel": {
      const json = answerJson(answer);
      const outcome = celOutcome(
        checker.expression,
        { answer, words: wordsOf(answer), lines: answer.split("\n"), json: json ?? null },
        1,
      );
      return {
        passed: outcome.passed,
        detail: outcome.error ?? (outcome.passed ? "true" : "false"),
      };
    }
  }
}

export interface JudgeCheckOptions {
  judge?: Judge;
  persona: { id: string; name: string; text: string };
  /** The verdict's trial (its seed's number, 1-based) and message (the fork it answers): its cache key. */
  trial: number;
  messageId?: string;
}

/** The judge's side of a probe: the persona, the probe and the answer as delimited data, one claim checked. */
export async function checkWithJudge(
  probe: Probe,
  answer: string,
  { judge, persona, trial, messageId }: JudgeCheckOptions & { judge: Judge },
): Promise<CheckOutcome> {
  const checker = probe.checker as Extract<Checker, { type: "judge" }>;
  const response = await judge.judge({
    items: [
      {
        key: {
          dimension: "drift",
          proposition_id: probe.id,
          agent_id: persona.id,
          ...(messageId ? { message_id: messageId } : {}),
          trial,
        },
        kind: "check",
        claim: fillName(checker.proposition, persona.name),
      },
    ],
    context: {
      persona: { name: persona.name, text: persona.text },
      trajectory: {
        title: "The question asked and the answer given",
        text: `question: ${escapeDelimiters(fillName(probe.text, persona.name))}\nanswer: ${escapeDelimiters(answer)}`,
      },
      action: { name: persona.name, text: escapeDelimiters(answer) },
    },
    doubleCheck: false,
  });
  const verdict = response.verdicts[0];
  if (!verdict?.ok || typeof verdict.value !== "boolean")
    return {
      passed: false,
      detail: "judge failed",
      error: verdict && !verdict.ok ? verdict.error.message : "no true or false from the judge",
    };
  return { passed: verdict.value, detail: verdict.value ? "judge: holds" : "judge: does not hold" };
}

/** A probe's answer checked by its checker (the judge's only for a judge proposition). */
export async function checkAnswer(
  probe: Probe,
  answer: string,
  options: JudgeCheckOptions,
): Promise<CheckOutcome> {
  if (probe.checker.type !== "judge") return checkDeterministic(probe.checker, answer, options.persona.name);
  if (!options.judge) return { passed: false, detail: "no judge", error: "the probe needs a judge" };
  return checkWithJudge(probe, answer, { ...options, judge: options.judge });
}
