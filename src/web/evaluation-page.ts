// One stored evaluation's page (`/<section>/{id}`), as every kind's goes: nothing (a 404) unless the id is an
// evaluation of the kind; its document when it completed with one, else a page that says why there is none.
import type { EvaluationKind, EvaluationRow } from "../store/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import type { Html } from "./html.ts";
import { layout, type Section } from "./layout.ts";

export interface EvaluationPageOptions<D> {
  kind: EvaluationKind;
  /** The page's title, and the navigation's section it is in (none: no section is marked). */
  title: string;
  section?: Section;
  /** A completed evaluation's document; undefined when it was stored without one the page can show. */
  document: (row: EvaluationRow) => Promise<D | undefined>;
  /** The page of an evaluation without a document: not completed, or completed without one. */
  none: (row: EvaluationRow) => Html;
  /** The page of its document. */
  body: (row: EvaluationRow, document: D) => Html | Promise<Html>;
}

export async function evaluationPage<D>(
  { store }: DashboardContext,
  id: string,
  { kind, title, section, document, none, body }: EvaluationPageOptions<D>,
): Promise<Html | undefined> {
  const row = await store.evaluations.get(id);
  if (row?.kind !== kind) return undefined;
  const found = row.status === "completed" ? await document(row) : undefined;
  return layout({ title, section, body: found === undefined ? none(row) : await body(row, found) });
}
