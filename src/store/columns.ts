// Conversions between TypeScript values and column values, the same for both drivers: timestamps
// come back as Date and leave as ISO strings; JSON goes in as text cast to jsonb.

/** A timestamp column as an ISO 8601 string. */
export function iso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : new Date(value).toISOString();
}

export function isoOrNull(value: Date | string | null | undefined): string | null {
  return value === null || value === undefined ? null : iso(value);
}

/** A value for a `$n::jsonb` parameter; null and undefined stay SQL NULL. */
export function jsonParam(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a text can be compared with a uuid column (anything else would be a SQL error). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
