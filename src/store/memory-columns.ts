// Column values of the in-memory store, kept as the SQL backends keep them: timestamps in microseconds
// from one clock (returned as ISO strings), jsonb documents with jsonb's key order (returned as fresh
// copies), and `real` columns rounded to single precision.
import { StoreError } from "../core/index.ts";

let last = 0;

/**
 * Now, in microseconds since the epoch, and never the same twice: PostgreSQL's now() has microseconds,
 * so rows created one after another in the same millisecond still sort in the order they were made.
 */
export function clock(): number {
  const now = Date.now() * 1000;
  last = now > last ? now : last + 1;
  return last;
}

/** A stored timestamp as the SQL backends return it: an ISO 8601 string, to the millisecond. */
export function isoAt(micros: number): string {
  return new Date(Math.floor(micros / 1000)).toISOString();
}

export function isoAtOrNull(micros: number | null): string | null {
  return micros === null ? null : isoAt(micros);
}

const FRACTION = /[T ]\d{1,2}:\d{2}:\d{2}\.(\d+)/;

/** A timestamptz input (ISO 8601) in microseconds, keeping digits below the millisecond as PostgreSQL does. */
export function timestampIn(text: string): number {
  const ms = Date.parse(text);
  if (Number.isNaN(ms))
    throw new StoreError(`invalid input syntax for type timestamp with time zone: "${text}"`);
  const digits = FRACTION.exec(text)?.[1];
  const below =
    digits && digits.length > 3 ? Math.round(Number(`0.${digits.slice(3, 6).padEnd(3, "0")}`) * 1000) : 0;
  return ms * 1000 + below;
}

export function timestampInOrNull(text: string | null | undefined): number | null {
  return text === null || text === undefined ? null : timestampIn(text);
}

/**
 * A value as a jsonb column keeps it: JSON text, with object keys in jsonb's order (shorter first, then
 * bytewise), since a SQL store hands keys back in that order. Undefined and null are SQL NULL.
 */
export function jsonbText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return JSON.stringify(jsonbOrder(JSON.parse(JSON.stringify(value))));
}

/** A stored JSON column as a fresh value: nothing a caller does to it reaches the stored row. */
export function jsonOut<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

function jsonbOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(jsonbOrder);
  if (value === null || typeof value !== "object") return value;
  const ordered: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort(jsonbKeyOrder))
    ordered[key] = jsonbOrder((value as Record<string, unknown>)[key]);
  return ordered;
}

const NON_ASCII = /[\u0080-\uffff]/;

function jsonbKeyOrder(a: string, b: string): number {
  if (!NON_ASCII.test(a) && !NON_ASCII.test(b)) return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length - y.length || Buffer.compare(x, y);
}

/**
 * A number as a `real` column returns it: rounded to single precision, then read back from PostgreSQL's
 * shortest text for it (7.3 stays 7.3; 6.333333333333333 becomes 6.3333335). Non-finite numbers are NULL.
 */
export function real(value: number | null | undefined): number | null {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  const single = Math.fround(value);
  if (Number.isInteger(single)) return single;
  for (let digits = 1; digits < 9; digits++) {
    const shortest = Number(single.toPrecision(digits));
    if (Math.fround(shortest) === single) return shortest;
  }
  return Number(single.toPrecision(9));
}

/** Text compared as the SQL `ORDER BY` of the stores compares it (code points; NULL handled by callers). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** NULLS FIRST, then text order. */
export function compareNullsFirst(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return compareText(a, b);
}
