// The window the judge read for one verdict's target (`/runs/:id/window?dimension=D&message=M`), rebuilt from the
// evaluation's kept input: the judged message highlighted first, then what came before it nearest first, then the
// messages after it, marked as not seen by the judge. `fragment=1` gives the part the run page loads in place.
import type { Context } from "hono";
import type { ScoreRow } from "../store/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { shortId } from "./format.ts";
import { type Html, html } from "./html.ts";
import { layout } from "./layout.ts";
import { PageInputError, pageId } from "./page-query.ts";
import { type JudgedMessage, type RunEvidence, runEvidence, windowKey } from "./run-evidence.ts";

/** Messages shown after the judged one: enough to see what it led to, few enough to stay a glance. */
const AFTER_SHOWN = 5;

/** The judged message's next messages in its channel (the judge saw none of them). */
function messagesAfter(evidence: RunEvidence, messageId: string): JudgedMessage[] {
  const list = [...evidence.messages.values()];
  const at = list.findIndex((m) => m.id === messageId);
  if (at < 0) return [];
  const { channel } = list[at]!;
  return list
    .slice(at + 1)
    .filter((m) => m.channel === channel)
    .slice(0, AFTER_SHOWN);
}

/**
 * A verdict's window as markup, from evidence planned for its target: the part the run page loads under a
 * verdict (or writes there, in the static report), and the body of the window's own page.
 */
export function judgeWindowView(
  evidence: RunEvidence,
  row: Pick<ScoreRow, "dimension" | "message_id">,
): Html {
  const window = evidence.windows.get(windowKey(row));
  if (!window)
    return html`<div class="window-view"><p class="muted">The window is not kept with this run: the evaluation stored no input or configuration to rebuild it from.</p></div>`;
  const messageId = row.message_id;
  const lines = window.lines ?? (window.text ? window.text.split("\n") : []);
  const message = messageId === null ? undefined : evidence.messages.get(messageId);
  const after = messageId === null ? [] : messagesAfter(evidence, messageId);
  const earlier =
    lines.length === 0
      ? html`<li class="window-empty">No earlier messages: the judge read nothing before this one.</li>`
      : [...lines].reverse().map((line) => html`<li>${line}</li>`);
  return html`<div class="window-view">
<p class="window-title">${window.title}</p>
${
  window.action
    ? html`<p class="window-judged" aria-current="true"><span class="tag">judged</span> <strong>${message?.speaker ?? window.action.name}</strong>${message ? html` <code>${message.id}</code> · #${message.channel}` : ""}: ${window.action.text}</p>`
    : ""
}
<p class="window-heading">${window.action ? "Before it, nearest first" : "What the judge read, nearest first"}</p>
<ol class="window-lines">${earlier}</ol>
${
  messageId === null
    ? ""
    : html`<p class="window-heading">After it — <strong>not seen by the judge</strong></p>
<ol class="window-after">${
        after.length === 0
          ? html`<li class="window-empty">No later messages in #${message?.channel ?? "its channel"}.</li>`
          : after.map(
              (m) =>
                html`<li class="not-seen"><span class="tag">not seen by the judge</span> <strong>${m.speaker}</strong> <code>${m.id}</code>: ${m.text}</li>`,
            )
      }</ol>`
}
</div>`;
}

/** The window of one verdict's target in a run, planned for that target alone; undefined when there is no such verdict. */
export async function judgeWindowFragment(
  context: DashboardContext,
  runId: string,
  raw: Readonly<Record<string, string>>,
): Promise<Html | undefined> {
  const dimension = raw.dimension;
  if (!dimension) throw new PageInputError("give the dimension whose window to show", "dimension");
  const messageId = raw.message || null;
  const run = await context.store.runs.get(runId);
  if (!run?.evaluation_id) return undefined;
  const rows = await context.store.scores.forEvaluation(run.evaluation_id, { run: run.id, dimension });
  const row = rows.find((r) => r.message_id === messageId);
  if (!row) return undefined;
  return judgeWindowView(await runEvidence(context.store, run, [row]), row);
}

/** The window as a page of its own, for a reader without the script (the run page's link leads here). */
async function judgeWindowPage(
  context: DashboardContext,
  runId: string,
  raw: Readonly<Record<string, string>>,
): Promise<Html | undefined> {
  const fragment = await judgeWindowFragment(context, runId, raw);
  if (!fragment) return undefined;
  const target = raw.message ? `message ${raw.message}` : "the agent's messages";
  const body = html`<h1>What the judge read <span class="muted">for ${target}, ${raw.dimension}</span></h1>
<p><a href="/runs/${runId}">← Run ${shortId(runId)}</a></p>
${fragment}`;
  return layout({ title: `What the judge read · run ${shortId(runId)}`, section: "runs", body });
}

/**
 * The route's answer: the page, or with `fragment=1` the bare fragment (the same 400 and 404 cases, as text,
 * for the script to show).
 */
export async function judgeWindowRoute(
  c: Context,
  context: DashboardContext,
  show: (c: Context, make: () => Promise<Html | undefined>) => Promise<Response>,
): Promise<Response> {
  const raw = c.req.query();
  if (raw.fragment !== "1")
    return show(c, () => judgeWindowPage(context, pageId(c.req.param("id") ?? ""), raw));
  try {
    const fragment = await judgeWindowFragment(context, pageId(c.req.param("id") ?? ""), raw);
    return fragment
      ? c.html(String(fragment))
      : c.html(String(html`<p class="muted">No such verdict in this run.</p>`), 404);
  } catch (error) {
    if (!(error instanceof PageInputError)) throw error;
    return c.html(String(html`<p class="muted">${error.message}</p>`), 400);
  }
}
