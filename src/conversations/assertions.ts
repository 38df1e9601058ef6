// Assertions on what the agent did, after a pass: CEL over the agent's object context (its state endpoint)
// and the conversation, or over the JSON of a GET. CEL, never JavaScript: no `eval`, no prototype access,
// no loops. Each assertion reports its actual value and any error; an error fails it, never crashes the run.
import { celJs } from "../core/index.ts";
import { type Db, openDatabase } from "../engine/index.ts";
import type { AssertionOutcome } from "./composite.ts";
import { type Graph, openGraph } from "./cypher.ts";
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
    const { parse, serialize } = celJs();
    const parsed = parse(expression);
    const values = celValue(context) as Record<string, unknown>;
    const result = parsed(values);
    if (typeof result !== "boolean")
      return {
        ...base,
        passed: false,
        actual: reportedValue(result),
        error: "the expression is not true or false",
      };
    if (result) return { ...base, passed: true, actual: true };
    const why = whyFalse(parsed.ast as CelNode, values);
    // The whole expression needs no naming again: only a part of it (an operand of `&&`) does.
    if (why.failed === serialize(parsed.ast as never)) delete why.failed;
    return { ...base, passed: false, actual: false, ...why };
  } catch (error) {
    return { ...base, passed: false, error: (error as Error).message.split("\n")[0] };
  }
}

/** The part of a CEL syntax tree this file reads: an operator (or node type) and its operands. */
interface CelNode {
  op: string;
  args: unknown;
}

const COMPARISONS = new Set(["==", "!=", "<", "<=", ">", ">="]);

/**
 * Why an expression came out false, for the report: the first false operand of `&&`, and for a comparison
 * both of its sides' values — `actual` the left, `expected` the right (prefixed by the operator unless it
 * is `==`) — so that `size(objectContext.reminders) == 1` reports 0 and 1, not just false.
 */
function whyFalse(
  node: CelNode,
  values: Record<string, unknown>,
): { actual?: unknown; expected?: unknown; failed?: string } {
  const { parse, serialize } = celJs();
  const evaluate = (n: unknown) => parse(serialize(n as never))(values);
  try {
    if (node.op === "&&" && Array.isArray(node.args)) {
      for (const operand of node.args as CelNode[])
        if (evaluate(operand) === false) return whyFalse(operand, values);
      return {};
    }
    if (COMPARISONS.has(node.op) && Array.isArray(node.args)) {
      const [left, right] = (node.args as unknown[]).map((n) => reportedValue(evaluate(n)));
      return {
        failed: serialize(node as never),
        actual: left,
        expected: node.op === "==" ? right : `${node.op} ${JSON.stringify(right)}`,
      };
    }
    return { failed: serialize(node as never) };
  } catch {
    // A side that cannot be evaluated on its own (it errors where `&&` short-circuited): no detail.
    return {};
  }
}

export interface AssertionContext {
  /** The agent's object context (its state endpoint's JSON), or undefined without a state URL. */
  objectContext?: unknown;
  conversation: ConversationFacts;
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** Where `sql` assertions without a database of their own run (the job's target.database). */
  database?: string;
  /** Where `cypher` assertions without a graph of their own run (the job's target.graph). */
  graph?: string;
}

/**
 * Whether a query's value is the expected one. Numbers compare as numbers whatever their text (PostgreSQL
 * returns a count as the text "1"), everything else by its JSON.
 */
export function sameValue(actual: unknown, expected: unknown): boolean {
  const numeric = (v: unknown) =>
    typeof v === "number" ||
    typeof v === "bigint" ||
    (typeof v === "string" && v.trim() !== "" && !Number.isNaN(Number(v)))
      ? Number(v)
      : undefined;
  const a = numeric(actual);
  const e = numeric(expected);
  if (a !== undefined && e !== undefined) return a === e;
  return JSON.stringify(actual) === JSON.stringify(expected);
}

/** Runs a query in a read-only transaction and returns its one value (one row, one column). */
async function queryValue(db: Db, sql: string): Promise<unknown> {
  const rows = await db.transaction(async (tx) => {
    await tx.query("SET TRANSACTION READ ONLY");
    return (await tx.query(sql)).rows;
  });
  if (rows.length === 0) return null;
  if (rows.length > 1) throw new Error(`the query returned ${rows.length} rows; expected one value`);
  const values = Object.values(rows[0]!);
  if (values.length !== 1) throw new Error(`the query returned ${values.length} columns; expected one value`);
  return values[0];
}

/**
 * Checks the assertions of a pass: CEL over the object context and the conversation, a GET and CEL over
 * its JSON, SQL in a read-only transaction, and Cypher read-only (see `openGraph`).
 */
export async function checkAssertions(
  assertions: readonly Assertion[],
  {
    objectContext,
    conversation,
    fetch: doFetch = fetch,
    timeoutMs = 10_000,
    database,
    graph,
  }: AssertionContext,
): Promise<AssertionOutcome[]> {
  const out: AssertionOutcome[] = [];
  // One connection per database named, for all the assertions on it.
  const databases = new Map<string, Promise<Db>>();
  const graphs = new Map<string, Promise<Graph>>();
  try {
    for (const a of assertions) out.push(await checkOne(a));
  } finally {
    for (const db of databases.values()) await db.then((d) => d.close()).catch(() => {});
    for (const g of graphs.values()) await g.then((d) => d.close()).catch(() => {});
  }
  return out;

  async function checkOne(a: Assertion): Promise<AssertionOutcome> {
    if (a.kind === "expression")
      return celOutcome(a.expression, { objectContext: objectContext ?? null, conversation }, a.weight);
    if (a.kind === "http") {
      const label = `GET ${a.http}: ${a.expression}`;
      try {
        const response = await doFetch(a.http, { signal: AbortSignal.timeout(timeoutMs) });
        if (!response.ok) throw new Error(`GET ${a.http}: HTTP ${response.status}`);
        const body = (await response.json()) as unknown;
        const context = { response: body, objectContext: objectContext ?? null, conversation };
        return { ...celOutcome(a.expression, context, a.weight), label };
      } catch (error) {
        return { label, weight: a.weight, passed: false, error: (error as Error).message };
      }
    }
    if (a.kind === "sql") {
      const base = { label: a.sql, weight: a.weight, expected: a.expected };
      const location = a.database ?? database;
      if (!location)
        return {
          ...base,
          passed: false,
          error: "no database to query: give target.database or the assertion's database",
        };
      try {
        let db = databases.get(location);
        if (!db) {
          db = openDatabase(location);
          databases.set(location, db);
        }
        const actual = reportedValue(await queryValue(await db, a.sql));
        return { ...base, passed: sameValue(actual, a.expected), actual };
      } catch (error) {
        return { ...base, passed: false, error: (error as Error).message.split("\n")[0] };
      }
    }
    const base = { label: a.cypher, weight: a.weight, expected: a.expected };
    const location = a.graph ?? graph;
    if (!location)
      return {
        ...base,
        passed: false,
        error: "no graph to query: give target.graph or the assertion's graph",
      };
    try {
      let opened = graphs.get(location);
      if (!opened) {
        opened = openGraph(location, { timeoutMs });
        graphs.set(location, opened);
      }
      const actual = reportedValue(await (await opened).readValue(a.cypher));
      return { ...base, passed: sameValue(actual, a.expected), actual };
    } catch (error) {
      return { ...base, passed: false, error: (error as Error).message.split("\n")[0] };
    }
  }
}
