// Keyset pagination of the newest-first lists (runs, evaluations): a page starts right after the last row
// of the page before, so pages neither skip nor repeat rows while new ones arrive, and no OFFSET is scanned.

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
