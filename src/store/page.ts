// Keyset pagination of the newest-first lists (runs, evaluations): a page starts right after the last row
// of the page before, so pages neither skip nor repeat rows while new ones arrive, and no OFFSET is scanned.
// The page's opaque cursor (base64url of the last row's created_at and id) is made and read here, once for
// the API and the dashboard.

/** The last row of the previous page: the next page holds the rows listed after it. */
export interface PageAfter {
  /** Its id; the store orders by its exact stored time (microseconds), which this id finds. */
  id: string;
  /** Its created_at (ISO 8601), used only when the row is gone. */
  created_at: string;
}

/** Filters by creation time shared by the paginated lists; both ends inclusive, ISO 8601. */
export interface CreatedRange {
  since?: string;
  until?: string;
}

/** The opaque cursor of the page after `row`: what a client passes back unchanged. */
export function encodePageCursor(row: { created_at: string; id: string }): string {
  return Buffer.from(JSON.stringify([row.created_at, row.id]), "utf8").toString("base64url");
}

/** The row a cursor names, or undefined when it is not a cursor {@link encodePageCursor} made. */
export function decodePageCursor(cursor: string): PageAfter | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === "string" &&
      typeof value[1] === "string" &&
      !Number.isNaN(Date.parse(value[0]))
    )
      return { created_at: value[0], id: value[1] };
  } catch {
    // Not JSON: the same answer as any other cursor we did not make.
  }
  return undefined;
}

/**
 * A page from `limit + 1` rows fetched: the first `limit`, and the cursor after the last of them when there
 * were more (so the last page says it is the last, with no empty page after it).
 */
export function pageOf<R extends { created_at: string; id: string }>(
  rows: readonly R[],
  limit: number,
): { rows: R[]; next: string | undefined } {
  const page = rows.slice(0, limit);
  return { rows: page, next: rows.length > limit ? encodePageCursor(page.at(-1)!) : undefined };
}

/**
 * A page of a newest-first list: `list` is asked for one row more than `limit` (so that the last page knows
 * it is the last), and the page is cut from what it gives (see {@link pageOf}).
 */
export async function fetchPage<R extends { created_at: string; id: string }>(
  limit: number,
  list: (limit: number) => Promise<readonly R[]>,
): Promise<{ rows: R[]; next: string | undefined }> {
  return pageOf(await list(limit + 1), limit);
}
