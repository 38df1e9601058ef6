// The filter form of a list page: a plain GET form, so the filters end up in the URL (linkable, and it
// works without JavaScript); the script only submits it when a field changes.
import type { Html } from "./html.ts";
import { html } from "./html.ts";
import type { PageQuery } from "./page-query.ts";

/** A filter a list page may have. */
export type FilterField = "agent" | "dimension" | "since" | "until";

const LABELS: Record<FilterField, string> = {
  agent: "Agent",
  dimension: "Dimension",
  since: "Since",
  until: "Until",
};

/**
 * The form of `fields`; `keep` are the view's other parameters (failures only, the sort), carried through a
 * new filter as hidden fields so that filtering does not reset them.
 */
export function filterForm(
  action: string,
  query: PageQuery,
  fields: readonly FilterField[],
  keep: Readonly<Record<string, string | undefined>> = {},
): Html {
  return html`<form class="filters" method="get" action="${action}">
${Object.entries(keep).map(([name, value]) =>
  value === undefined ? "" : html`<input type="hidden" name="${name}" value="${value}">`,
)}
${fields.map(
  (field) =>
    html`<label>${LABELS[field]} <input name="${field}" value="${query[field] ?? ""}"${
      field === "since" || field === "until"
        ? html` placeholder="YYYY-MM-DD" title="a date (YYYY-MM-DD) or an ISO time"`
        : ""
    }></label>`,
)}
<button type="submit">Filter</button>
${fields.some((f) => query[f] !== undefined) ? html`<a href="${action}">clear</a>` : ""}
</form>`;
}
