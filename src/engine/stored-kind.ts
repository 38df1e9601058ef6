// How a stored kind is read back: what it declares once (its document's format, loader, list query, reports
// and the API's schemas) so that `show`, `runs`, the API, the dashboard and the static report serve every kind
// the same way. The registry of them is `src/kinds/`; `EvaluationOfKind` (run-evaluation.ts) is how one runs.
import type { ZodType } from "zod";
import type { CreatedRange, EvaluationKind, PageAfter, Store } from "../store/index.ts";

/** A page of a kind's list, newest first, as the API and the dashboard ask for it. */
export interface StoredListQuery extends CreatedRange {
  /** Only evaluations this agent took part in (its id). */
  agent?: string;
  after?: PageAfter;
  limit: number;
}

/** One line of a kind's list: at least what every list shows. */
export interface StoredListRow {
  id: string;
  created_at: string;
  status: string;
}

/** What a persona report adds for a person: the project's minimum and where the result is kept. */
export interface ReportContext {
  minimum?: Readonly<Partial<Record<string, number>>>;
  stored?: { location: string; kept: boolean };
}

/** The API's words and schemas for a kind, in its OpenAPI document (schemas named with zod's `.meta({ id })`). */
export interface StoredKindApi {
  /** `GET /api/<section>`: its summary, its 200 answer's description, and the agent filter's. */
  list: { summary: string; description: string; agent: string; row: ZodType };
  /** `GET /api/<section>/{id}`: its summary, its 200 and 409 answers' descriptions. */
  one: { summary: string; description: string; conflict: string; document: ZodType };
}

/**
 * A kind of stored evaluation, read back. Its folder exports one (`sessionKind`…); `src/kinds/` lists them.
 * Reports are pure: the same document gives the same text, with its final newline.
 */
export interface StoredKind<D = unknown, L extends StoredListRow = StoredListRow> {
  /** The evaluations' kind in the store. */
  readonly kind: EvaluationKind;
  /** What one is called in messages and titles: "session analysis". */
  readonly noun: string;
  /** Its place: `/api/<section>`, the dashboard's `/<section>`, and its list's JSON key. */
  readonly section: string;
  /** The result document's format, e.g. `dramaturg.session-analysis/v1`. */
  readonly format: string;
  /**
   * The completed evaluation an id (or its first 8+ characters) names; the latest with none. An id of another
   * kind, of none, or of one that did not complete is an InputError.
   */
  load(store: Store, id?: string): Promise<D>;
  /** Its evaluations, newest first, one line each. */
  list(store: Store, query: StoredListQuery): Promise<L[]>;
  /** The terminal report (`show`, `--format table`). */
  text(document: D, context?: ReportContext): string;
  /** The Markdown report. */
  markdown(document: D, context?: ReportContext): string;
  /** The JSON document that `show --format json` prints and the API answers. */
  json(document: D): unknown;
  /** Its list as a terminal table (`runs`), one line a row, each ending in a newline. */
  listTable(rows: readonly L[]): string;
  /**
   * `evaluation`: read back by evaluation id, its API and pages at `/<section>/{id}`. `run` (the persona kind):
   * read back by run, its list the runs (`runs`, `/api/runs`, `/runs`), which have routes of their own.
   */
  readonly readBack: "evaluation" | "run";
  /** `show --format html` and the static report show its dashboard page; without, html prints the text. */
  readonly htmlReport: boolean;
  readonly api?: StoredKindApi;
}

/**
 * The terminal table of a list: `id  created  status` (the id's first 8 characters, the time in UTC to the
 * second), then the kind's own `header` and each row's `cells`.
 */
export function storedListTable<L extends StoredListRow>(
  rows: readonly L[],
  header: string,
  cells: (row: L) => string,
): string {
  const lines = [`id        created              status     ${header}`];
  for (const r of rows) {
    const created = new Date(r.created_at).toISOString().slice(0, 19).replace("T", " ");
    lines.push(`${r.id.slice(0, 8)}  ${created}  ${r.status.padEnd(9)}  ${cells(r)}`);
  }
  return `${lines.join("\n")}\n`;
}
