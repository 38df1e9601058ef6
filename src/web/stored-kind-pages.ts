// The dashboard's pages of each stored kind read back by evaluation: the kind's own pages where web/ has
// them (sessions, conversations, calibrations, experiments, validations, red-team runs), else plain ones made from its registration — a list of its
// evaluations newest first, and one evaluation's terminal report.
import { InputError } from "../core/index.ts";
import type { StoredKind } from "../engine/index.ts";
import type { EvaluationKind } from "../store/index.ts";
import { fetchPage } from "../store/index.ts";
import { calibrationPage } from "./calibration-page.ts";
import { calibrationsList } from "./calibrations-page.ts";
import { conversationPage, conversationsList } from "./conversations-page.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { evaluationPage } from "./evaluation-page.ts";
import { experimentPage, experimentsPage } from "./experiment-page.ts";
import { capitalised, hrefWith, shortId, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import { layout, nextPageLink } from "./layout.ts";
import { decodeCursor, type PageQuery } from "./page-query.ts";
import { redteamPage } from "./redteam-page.ts";
import { sessionPage, sessionsList } from "./sessions-page.ts";
import { kindListPage } from "./stored-list-page.ts";
import { validationPage, validationsList } from "./validation-page.ts";

/** A kind's list page and its evaluation's page (undefined: no such evaluation, a 404). */
export interface KindPages {
  list(context: DashboardContext, query: PageQuery, raw: Readonly<Record<string, string>>): Promise<Html>;
  detail(
    context: DashboardContext,
    id: string,
    raw: Readonly<Record<string, string>>,
  ): Promise<Html | undefined>;
}

/** The kinds whose pages are their own (charts, timelines, filters): one line a kind, its list and its page. */
const OWN_PAGES: Partial<Record<EvaluationKind, (kind: StoredKind) => KindPages>> = {
  session: (kind) => ({ list: kindListPage(kind, sessionsList), detail: sessionPage }),
  conversation: (kind) => ({ list: kindListPage(kind, conversationsList), detail: conversationPage }),
  calibration: (kind) => ({ list: kindListPage(kind, calibrationsList), detail: calibrationPage }),
  experiment: () => ({ list: experimentsPage, detail: experimentPage }),
  validation: (kind) => ({ list: kindListPage(kind, validationsList), detail: validationPage }),
  redteam: (kind) => ({ list: plainPages(kind).list, detail: redteamPage }),
};

/** Plain pages of a kind: its evaluations as a table, and an evaluation's terminal report as text. */
function plainPages(kind: StoredKind): KindPages {
  const title = capitalised(kind.section);
  return {
    async list({ store }, { agent, since, until, limit, cursor }) {
      const page = await fetchPage(limit, (n) =>
        kind.list(store, { agent, since, until, after: decodeCursor(cursor), limit: n }),
      );
      const next =
        page.next === undefined
          ? undefined
          : hrefWith(`/${kind.section}`, { agent, since, until, cursor: page.next });
      return layout({
        title,
        body: html`<h1>${title}</h1>
${
  page.rows.length === 0
    ? html`<p>No ${kind.section} in this store.</p>`
    : html`<table><thead><tr><th>Id</th><th>Created</th><th>Status</th></tr></thead>
<tbody>${page.rows.map(
        (r) =>
          html`<tr><td><a href="/${kind.section}/${r.id}"><code>${shortId(r.id)}</code></a></td><td>${when(r.created_at)}</td><td>${r.status}</td></tr>`,
      )}</tbody></table>`
}
${nextPageLink(next)}`,
      });
    },
    detail(context, id) {
      const heading = `${capitalised(kind.noun)} ${shortId(id)}`;
      return evaluationPage(context, id, {
        kind: kind.kind,
        title: heading,
        document: () =>
          kind.load(context.store, id).catch((error) => {
            if (InputError.isInstance(error)) return undefined;
            throw error;
          }),
        none: (row) => html`<h1>${heading}</h1>
<p>This ${kind.noun} is ${row.status}; it has no result${row.status === "completed" ? " stored" : " yet"}.</p>`,
        body: (_, document) => html`<h1>${heading}</h1>
<pre class="report">${kind.text(document)}</pre>`,
      });
    },
  };
}

/** The pages of a kind: its own, or plain ones. */
export function kindPages(kind: StoredKind): KindPages {
  return OWN_PAGES[kind.kind]?.(kind) ?? plainPages(kind);
}
