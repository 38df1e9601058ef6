// How a list is viewed (runs, sessions, conversations, calibrations; a run's verdicts): "failures only"
// (`?failures=1`) and a sort column (`?sort=COL&order=asc|desc`), validated with zod at the edge like the page
// query, and the markup the lists share — sortable headers with aria-sort, the All / Failures only switch, and
// the failures-only scan that fills a page across the store's newest-first pages. The list pages' frame is
// stored-list-page.ts.
import { z } from "zod";
import { plainIssueMessage } from "../core/index.ts";
import { encodePageCursor, fetchPage, type PageAfter } from "../store/index.ts";
import { hrefWith } from "./format.ts";
import { type Fragment, type Html, html } from "./html.ts";
import { PageInputError } from "./page-query.ts";

export type SortOrder = "asc" | "desc";

/** A list's view: failures only or not, and the column it is sorted by (undefined: the store's order). */
export interface ListView<C extends string> {
  failures: boolean;
  sort: C | undefined;
  order: SortOrder;
}

/** An absent or empty parameter (a submitted form's empty field) means the default. */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === "" ? undefined : value), schema.optional());

/**
 * Reads `failures`, `sort` and `order` from a page's query string; the other parameters are the page
 * query's. A bad value is a PageInputError naming the parameter (a 400 page).
 */
export function parseListView<C extends string>(
  query: Readonly<Record<string, string>>,
  columns: readonly [C, ...C[]],
): ListView<C> {
  const schema = z.object({
    failures: optional(z.enum(["0", "1"], { error: 'expected "1" (failures only) or "0"' })),
    sort: optional(z.enum(columns, { error: `expected one of ${columns.join(", ")}` })),
    order: optional(z.enum(["asc", "desc"], { error: 'expected "asc" or "desc"' })),
  });
  const parsed = schema.safeParse(query, { error: plainIssueMessage });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new PageInputError(issue.message, issue.path.join(".") || "query");
  }
  const { failures, sort, order } = parsed.data;
  if (order !== undefined && sort === undefined)
    throw new PageInputError("give sort=COLUMN with it", "order");
  return { failures: failures === "1", sort: sort as C | undefined, order: order ?? "asc" };
}

/** Reads `failures` alone, for a page that has a failures switch and no sortable list. */
export function parseFailuresOnly(query: Readonly<Record<string, string>>): boolean {
  // Only `failures` is read: the page has no column to sort, so no sort parameter is looked at.
  return parseListView({ failures: query.failures ?? "" }, ["none"]).failures;
}

/** The query parameters that carry a view into a link (none for the defaults). */
export function viewParams<C extends string>(view: ListView<C>): Record<string, string | undefined> {
  return {
    failures: view.failures ? "1" : undefined,
    sort: view.sort,
    order: view.sort === undefined ? undefined : view.order,
  };
}

/** A sortable column: its key, what the header says, and the value its rows sort by (null sorts last). */
export interface SortColumn<R, C extends string> {
  key: C;
  label: string;
  numeric?: boolean;
  value: (row: R) => string | number | null;
}

/**
 * The rows sorted by the view's column (stable; rows without a value last, whichever the order), or as
 * they came when the view has none.
 */
export function sortRows<R, C extends string>(
  rows: readonly R[],
  view: ListView<C>,
  columns: readonly SortColumn<R, C>[],
): R[] {
  const column = columns.find((c) => c.key === view.sort);
  if (!column) return [...rows];
  const sign = view.order === "asc" ? 1 : -1;
  return rows
    .map((row, i) => ({ row, i, v: column.value(row) }))
    .sort((a, b) => {
      if (a.v === null || b.v === null) return a.v === b.v ? a.i - b.i : a.v === null ? 1 : -1;
      const d =
        typeof a.v === "number" && typeof b.v === "number"
          ? a.v - b.v
          : String(a.v).localeCompare(String(b.v));
      return d === 0 ? a.i - b.i : sign * d;
    })
    .map((x) => x.row);
}

/**
 * A header cell: a link that sorts by its column (ascending first, then the other way), `aria-sort` on the
 * current one, `class="num"` over a numeric column. `base` is the page's path and every other parameter
 * to keep (filters, the cursor: the same page is sorted).
 */
export function sortHeader<R, C extends string>(
  column: SortColumn<R, C>,
  view: ListView<C>,
  base: { path: string; params: Record<string, string | number | undefined> },
): Html {
  const current = view.sort === column.key;
  const next: SortOrder = current && view.order === "asc" ? "desc" : "asc";
  const href = hrefWith(base.path, {
    ...base.params,
    ...viewParams({ ...view, sort: column.key, order: next }),
  });
  const sort = current ? (view.order === "asc" ? "ascending" : "descending") : undefined;
  return html`<th${column.numeric ? html` class="num"` : ""}${sort ? html` aria-sort="${sort}"` : ""}><a href="${href}">${column.label}${current ? (view.order === "asc" ? " ▲" : " ▼") : ""}</a></th>`;
}

/** The All / Failures only switch of a list (links, so it works without script), and what failures means. */
export function failuresSwitch(
  view: ListView<string>,
  base: { path: string; params: Record<string, string | number | undefined> },
  meaning: Fragment,
  labels: { all: string; failures: string } = { all: "All", failures: "Failures only" },
): Html {
  // Switching starts from the first page: a cursor of one list means nothing in the other.
  const { cursor: _cursor, ...params } = base.params;
  const link = (failures: boolean, label: string) =>
    html`<a href="${hrefWith(base.path, { ...params, ...viewParams({ ...view, failures }) })}"${
      view.failures === failures ? html` aria-current="true"` : ""
    }>${label}</a>`;
  return html`<p class="view-switch">Show: ${link(false, labels.all)} · ${link(true, labels.failures)}${
    view.failures ? html` <span class="muted">— ${meaning}</span>` : ""
  }</p>`;
}

/** Said under a table sorted by a column: the store pages by creation time, so sorting is within the page. */
export function sortedWithinPage(view: ListView<string>): Html {
  return view.sort === undefined
    ? html``
    : html`<p class="muted sort-note">Sorted within this page; the pages follow creation time, newest first.</p>`;
}

/** A page of the rows that pass a test, scanned from the store's newest-first pages. */
export interface FilteredPage<R> {
  rows: R[];
  /** The cursor of the next page, when there may be more. */
  next: string | undefined;
  /** How many rows were looked at to fill this page. */
  scanned: number;
  /** True when the scan stopped at its limit before the page was full: `next` continues it. */
  stopped: boolean;
}

/**
 * A page of `limit` rows that pass `keep`, read in batches from a newest-first list (`list(after, n)`), at
 * most `maxScan` rows looked at per request: a filter the database cannot apply (it reads the stored result)
 * still pages correctly, each page starting after the last row the one before looked at.
 */
export async function filteredPage<R extends { created_at: string; id: string }>({
  limit,
  after,
  list,
  keep,
  maxScan = 500,
}: {
  limit: number;
  after: PageAfter | undefined;
  list: (after: PageAfter | undefined, limit: number) => Promise<readonly R[]>;
  keep: (row: R) => boolean;
  maxScan?: number;
}): Promise<FilteredPage<R>> {
  const rows: R[] = [];
  let scanned = 0;
  let cursor = after;
  let last: R | undefined;
  const batch = Math.max(limit + 1, 50);
  for (;;) {
    const want = Math.min(batch, maxScan - scanned);
    const got = await list(cursor, want);
    for (const row of got) {
      scanned++;
      if (keep(row)) {
        if (rows.length === limit) return { rows, next: encodePageCursor(last!), scanned, stopped: false };
        rows.push(row);
      }
      last = row;
    }
    if (got.length < want) return { rows, next: undefined, scanned, stopped: false };
    if (scanned >= maxScan) return { rows, next: encodePageCursor(last!), scanned, stopped: true };
    cursor = { id: last!.id, created_at: last!.created_at };
  }
}

/**
 * A list page: the store's own page, or with `failuresOnly` the rows that pass `keep`, scanned as
 * {@link filteredPage} does.
 */
export async function listPage<R extends { created_at: string; id: string }>({
  failuresOnly,
  ...scan
}: Parameters<typeof filteredPage<R>>[0] & { failuresOnly: boolean }): Promise<FilteredPage<R>> {
  if (failuresOnly) return filteredPage(scan);
  const page = await fetchPage(scan.limit, (n) => scan.list(scan.after, n));
  return { rows: [...page.rows], next: page.next, scanned: 0, stopped: false };
}
