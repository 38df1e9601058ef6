// Assertions on what the agent did, after a pass: CEL over the agent's object context (its state endpoint)
// and the conversation, or over the JSON of a GET. CEL, never JavaScript: no `eval`, no prototype access,
// no loops. Each assertion reports its actual value and any error; an error fails it, never crashes the run.
import { parse as parseCel } from "@marcbachmann/cel-js";
import type { AssertionOutcome } from "./composite.ts";
import type { Assertion } from "./job.ts";

/** What CEL sees of the conversation: the turns, and the tool calls the agent reported. */
export interface ConversationFacts {
  turns: { role: "user" | "assistant"; content: string }[];
  tool_calls: { name: string; arguments: unknown }[];
}

/**
 * A JSON value as CEL reads it: whole numbers as CEL integers (BigInt), so that `count + 1` and
 * `size(x) == count` mean what they say (cel-js has no int + double overload).
 */
export function celValue(value: unknown): unknown {
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(celValue);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, celValue(v)]));
  return value;
}

/** A CEL result as JSON for the report: BigInt back to a number where it fits. */
export function reportedValue(value: unknown): unknown {
  if (typeof value === "bigint")
    return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Array.isArray(value)) return value.map(reportedValue);
  if (value instanceof Map)
    return Object.fromEntries([...value].map(([k, v]) => [String(k), reportedValue(v)]));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, reportedValue(v)]));
  return value;
}

/** Evaluates one CEL expression; passes only on `true`. */
export function celOutcome(
  expression: string,
  context: Record<string, unknown>,
  weight: number,
): AssertionOutcome {
  const base = { label: expression, weight };
  try {
    const result = parseCel(expression)(celValue(context) as Record<string, unknown>);
    if (typeof result !== "boolean")
      return {
        ...base,
        passed: false,
        actual: reportedValue(result),
        error: "the expression is not true or false",
      };
    return { ...base, passed: result, actual: result };
  } catch (error) {
    return { ...base, passed: false, error: (error as Error).message.split("\n")[0] };
  }
}

export interface AssertionContext {
  /** The agent's object context (its state endpoint's JSON), or undefined without a state URL. */
  objectContext?: unknown;
  conversation: ConversationFacts;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/**
 * Checks the `expression` and `http` assertions of a pass. SQL and Cypher assertions need a database and
 * come back as not checked (an error on the outcome), so that a job is scored on what was verified.
 */
export async function checkAssertions(
  assertions: readonly Assertion[],
  { objectContext, conversation, fetch: doFetch = fetch, timeoutMs = 10_000 }: AssertionContext,
): Promise<AssertionOutcome[]> {
  const out: AssertionOutcome[] = [];
  for (const a of assertions) {
    if (a.kind === "expression") {
      out.push(celOutcome(a.expression, { objectContext: objectContext ?? null, conversation }, a.weight));
      continue;
    }
    if (a.kind === "http") {
      try {
        const response = await doFetch(a.http, { signal: AbortSignal.timeout(timeoutMs) });
        if (!response.ok) throw new Error(`GET ${a.http}: HTTP ${response.status}`);
        const body = (await response.json()) as unknown;
        const outcome = celOutcome(
          a.expression,
          { response: body, objectContext: objectContext ?? null, conversation },
          a.weight,
        );
        out.push({ ...outcome, label: `GET ${a.http}: ${a.expression}` });
      } catch (error) {
        out.push({
          label: `GET ${a.http}: ${a.expression}`,
          weight: a.weight,
          passed: false,
          error: (error as Error).message,
        });
      }
      continue;
    }
    const label = a.kind === "sql" ? a.sql : a.cypher;
    out.push({
      label,
      weight: a.weight,
      passed: false,
      expected: a.expected,
      error: `${a.kind} assertions are not checked yet`,
    });
  }
  return out;
}
