// A list page of stored rows (runs, session analyses, conversations, calibrations): its view from the query
// string, a page of rows (all, or those "failures only" keeps, scanned across the store's pages), sorted within
// the page, and the frame every list has — heading, filter form, All / Failures only switch, the table or an
// empty state, the next-page link. A list declares only what is its own (`StoredList`).
import type { EvaluationKind, EvaluationRow, PageAfter, Store } from "../store/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { type FilterField, filterForm } from "./filter-form.ts";
import { capitalised, hrefWith } from "./format.ts";
import { type Fragment, type Html, html } from "./html.ts";
import { firstRun, layout, nextPageLink, type Section } from "./layout.ts";
import {
  failuresSwitch,
  type ListView,
  listPage,
  parseListView,
  type SortColumn,
  sortedWithinPage,
  sortHeader,
  sortRows,
  viewParams,
} from "./list-view.ts";
import { decodeCursor, type PageQuery } from "./page-query.ts";

/** What a row's cells may need of the list: its view, and a link to the list with other parameters. */
export interface ListedRows<C extends string> {
  view: ListView<C>;
  /** The list's path with its filters, its view and `params` (e.g. another agent). */
  href(params: Record<string, string | undefined>): string;
}

/**
 * The two forms the list pages have, kept to the byte. `"runs"` (runs, calibrations): the rows newest first
 * unless sorted (the Created header says so), a stopped failures scan said above the table "for this page",
 * an empty failures view "among the … looked at", the next link's cursor before the view. `"sessions"`
 * (sessions, conversations): the store's order unmarked, a stopped scan said under the table "for failures",
 * an empty failures view "among the failures", the cursor last.
 */
export type ListForm = "runs" | "sessions";

/** What a list page has of its own: its rows' columns and cells, what "failures only" keeps, its words. */
export interface StoredList<R extends { created_at: string; id: string }, C extends string, L = undefined> {
  /** The columns it may be sorted by, in the order an error names them, each with its header and value. */
  columns: readonly SortColumn<R, C>[];
  /** The table's header cells (`th`: a column's sorting header) and a row's `<tr>`. */
  header: (th: (key: C) => Html) => Html;
  row: (row: R, rows: ListedRows<C>, looked: L) => Html;
  /** What the rows' cells look up beyond the rows, read once for the page's rows (e.g. the runs they link to). */
  lookup?: (store: Store, rows: readonly R[]) => Promise<L>;
  /** What "failures only" keeps, what that means in the page's words, and the switch's labels if not the usual. */
  keep: (row: R) => boolean;
  failures: Fragment;
  switchLabels?: { all: string; failures: string };
  form: ListForm;
  /** Its rows in "Looked at 500 analyses for failures". */
  counted: string;
  /** A paragraph under the heading, e.g. what its figures mean. */
  intro?: Html;
}

/** Where a list is and what it lists. */
export interface ListPlace<R> {
  /** Its path `/<section>`, its navigation, the empty store's first-run message; its title capitalised. */
  section: Section;
  /** A row of it in "No session analysis matches these filters". */
  noun: string;
  query: PageQuery;
  raw: Readonly<Record<string, string>>;
  /** The filters of its form and links, in their order; agent, since and until by default. */
  fields?: readonly FilterField[];
  /** A page of its rows newest first, after a row (the cursor's). */
  list: (after: PageAfter | undefined, limit: number) => Promise<readonly R[]>;
}

export async function storedListPage<R extends { created_at: string; id: string }, C extends string, L>(
  { store }: DashboardContext,
  { section, noun, query, raw, fields = ["agent", "since", "until"], list }: ListPlace<R>,
  own: StoredList<R, C, L>,
): Promise<Html> {
  const path = `/${section}`;
  const title = capitalised(section);
  const runsForm = own.form === "runs";
  const filters = Object.fromEntries(fields.map((field) => [field, query[field]]));
  const view = parseListView(raw, own.columns.map((c) => c.key) as [C, ...C[]]);
  const page = await listPage({
    failuresOnly: view.failures,
    limit: query.limit,
    after: decodeCursor(query.cursor),
    list,
    keep: own.keep,
  });
  const looked = (await own.lookup?.(store, page.rows)) as L;
  const here = { path, params: { ...filters, cursor: query.cursor } };
  // The runs form's rows are newest first with no column asked for, and its headers say so.
  const shown: ListView<C> =
    runsForm && view.sort === undefined ? { ...view, sort: "created" as C, order: "desc" } : view;
  const th = (key: C) => sortHeader(own.columns.find((c) => c.key === key)!, shown, here);
  const href = (params: Record<string, string | undefined>) =>
    hrefWith(path, { ...filters, ...viewParams(view), ...params });
  const rows = sortRows(page.rows, view, own.columns);
  // Anything that narrows the list: then an empty one says so, rather than how to fill the store.
  const filtered = Object.values(filters).some(Boolean) || Boolean(query.cursor) || view.failures;
  const among = runsForm ? ` among the ${own.counted} looked at` : " among the failures";
  const body =
    rows.length === 0
      ? filtered
        ? html`<p>No ${noun} matches these filters${view.failures ? among : ""}.</p>`
        : firstRun(section)
      : html`<table class="${section}">
<thead><tr>${own.header(th)}</tr></thead>
<tbody>${rows.map((r) => own.row(r, { view, href }, looked))}</tbody></table>`;
  const stopped = !page.stopped
    ? ""
    : runsForm
      ? html`<p class="muted">Looked at ${page.scanned} ${own.counted} for this page; the next page goes on from there.</p>`
      : html`<p class="muted">Looked at ${page.scanned} ${own.counted} for failures; the next page looks further.</p>`;
  // A line each, in the form's order: a stopped scan is said above the table, or under it.
  const lines = runsForm ? [stopped, body, sortedWithinPage(view)] : [body, sortedWithinPage(view), stopped];
  const next = runsForm
    ? hrefWith(path, { ...filters, cursor: page.next, ...viewParams(view) })
    : href({ cursor: page.next });
  return layout({
    title,
    section,
    body: html`<h1>${title}</h1>
${
  own.intro
    ? html`${own.intro}
`
    : ""
}${filterForm(path, query, fields, viewParams(view))}
${failuresSwitch(view, here, own.failures, own.switchLabels)}
${lines.map(
  (line) => html`${line}
`,
)}${nextPageLink(page.next && next)}`,
  });
}

/** A kind's own list: its evaluations' rows as the page shows them, beside what every list has of its own. */
export interface KindList<R extends { created_at: string; id: string }, C extends string, L = undefined>
  extends StoredList<R, C, L> {
  rows: (store: Store, evaluations: readonly EvaluationRow[]) => Promise<R[]>;
  /** The filters of its form; agent, since and until by default (a kind whose evaluations name no agent: not agent). */
  fields?: readonly FilterField[];
}

/**
 * The list page of a kind's evaluations (by agent and time, newest first) as `own` declares it. `section` is
 * the kind's, one of the navigation's: a kind with a list of its own has its place there.
 */
export function kindListPage<R extends { created_at: string; id: string }, C extends string, L>(
  { kind, section, noun }: { kind: EvaluationKind; section: string; noun: string },
  own: KindList<R, C, L>,
): (context: DashboardContext, query: PageQuery, raw: Readonly<Record<string, string>>) => Promise<Html> {
  return (context, query, raw) =>
    storedListPage(
      context,
      {
        section: section as Section,
        noun,
        query,
        raw,
        fields: own.fields,
        list: async (after, limit) => {
          const { agent, since, until } = query;
          const { store } = context;
          return own.rows(store, await store.evaluations.list({ kind, agent, since, until, after, limit }));
        },
      },
      own,
    );
}
