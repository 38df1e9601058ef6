// The labelling page (issue 39): a persona evaluation's judged items one at a time — the message, the agent's
// persona, the claim and the window the judge read — where a person gives the claim's raw score 0–9 and a
// note, saved as labels that `dramaturg calibrate` reads once exported. Blind: the judge's verdict is never
// shown here. The rater's name is asked once and kept in a cookie (the server's token is shared, so it cannot
// say who is labelling). Forms and links only, no script; every post passes the same-origin check.
import type { Context } from "hono";
import { Hono } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { z } from "zod";
import type { EvaluationRow, LabelRow } from "../store/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { postedFromThisSite } from "./form-origin.ts";
import { hrefWith, shortId, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import {
  type ItemEvidence,
  itemEvidence,
  keptInput,
  type LabellingItem,
  labelItemKey,
  labellingQueue,
} from "./labelling-queue.ts";
import { layout, withAccount } from "./layout.ts";

/** The cookie that names who is labelling in this browser. */
export const RATER_COOKIE = "dramaturg_rater";

/** A note's longest text: a few sentences on why, not an essay. */
export const MAX_NOTE = 2_000;

const EXPORT_FORMATS = ["yaml", "jsonl", "csv"] as const;

/** A rater's name: what the labels file records as `rater`, kept plain so it reads the same in every format. */
export const RaterName = z
  .string({ error: "expected a name" })
  .trim()
  .min(1, { error: "expected a name of 1 to 64 characters" })
  .max(64, { error: "expected a name of 1 to 64 characters" })
  .regex(/^[\p{L}\p{N} ._-]+$/u, {
    error: "expected letters, digits, spaces, dots, underscores and hyphens only",
  });

const ItemKey = z.string().regex(/^[0-9a-f]{16}$/, { error: "expected an item of this page's links" });

const PageQuery = z.object({
  item: ItemKey.optional(),
  after: ItemKey.optional(),
  rater: z.literal("change", { error: 'expected "change"' }).optional(),
});

const LabelForm = z.object({
  item: ItemKey,
  score: z.coerce
    .number({ error: "expected a whole number from 0 to 9" })
    .int({ error: "expected a whole number from 0 to 9" })
    .min(0, { error: "expected a whole number from 0 to 9" })
    .max(9, { error: "expected a whole number from 0 to 9" }),
  note: z
    .string({ error: "expected text" })
    .trim()
    .max(MAX_NOTE, { error: `expected at most ${MAX_NOTE} characters` })
    .optional(),
});

const RaterForm = z.object({ rater: RaterName });

/** Bad input: a 400 page naming the field or parameter. */
class LabellingInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** The first problem of a zod result, as a 400 naming its field. */
function parsed<T>(schema: z.ZodType<T>, value: unknown, fallback: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = String(issue.path[0] ?? fallback);
  // A missing field is "expected …" too, said once, however zod words it.
  throw new LabellingInputError(
    field,
    issue.code === "invalid_type" && issue.input === undefined ? `missing; ${issue.message}` : issue.message,
  );
}

const labelPath = (evaluationId: string) => `/evaluations/${evaluationId}/label`;

/** The labelling routes: `GET|POST /evaluations/:id/label`, `POST /evaluations/:id/label/rater`, and `/runs/:id/label` → the run's evaluation's. */
export function labellingRoutes(context: DashboardContext, signOut: boolean): Hono {
  const { store } = context;
  const app = new Hono();
  const page = (c: Context, markup: Html, status: 200 | 400 | 403 | 404 = 200) =>
    c.html(withAccount(markup, signOut), status);

  const notFound = (c: Context, what: string) =>
    page(
      c,
      layout({
        title: "Not found",
        section: "runs",
        body: html`<h1>Not found</h1><p>${what} <a href="/runs">Back to the runs</a>.</p>`,
      }),
      404,
    );

  const badRequest = (c: Context, error: LabellingInputError, back: string) =>
    page(
      c,
      layout({
        title: "Bad request",
        section: "runs",
        body: html`<h1>Bad request</h1><p role="alert" class="error">The <code>${error.field}</code> field: ${error.message}.</p><p><a href="${back}">Back to labelling</a></p>`,
      }),
      400,
    );

  /** The persona evaluation of the path, or a 404 page. */
  const evaluationOf = async (c: Context): Promise<EvaluationRow | Response> => {
    const id = c.req.param("id") ?? "";
    const evaluation = z.uuid().safeParse(id).success ? await store.evaluations.get(id) : undefined;
    if (evaluation?.kind !== "persona")
      return notFound(c, html`No persona evaluation is stored under <code>${id}</code>.`);
    return evaluation;
  };

  const refused = (c: Context, back: string) =>
    page(
      c,
      layout({
        title: "Refused",
        section: "runs",
        body: html`<h1>Refused</h1><p class="error" role="alert">This form was posted from another site; nothing was saved.</p><p><a href="${back}">Back to labelling</a></p>`,
      }),
      403,
    );

  const fromThisSite = (c: Context) => postedFromThisSite(c.req);

  app.get("/runs/:id/label", async (c) => {
    const id = c.req.param("id");
    const run = z.uuid().safeParse(id).success ? await store.runs.get(id) : undefined;
    if (!run?.evaluation_id)
      return notFound(c, html`No run of an evaluation is stored under <code>${id}</code>.`);
    return c.redirect(labelPath(run.evaluation_id), 302);
  });

  /**
   * A route of the path's persona evaluation's labelling (else a 404 page): a form posted from another site is
   * refused (403); bad input is a 400 page whose link goes `back` (to the labelling page unless said).
   */
  const labelling = async (
    c: Context,
    { posted = false, back = (path: string) => path }: { posted?: boolean; back?: (path: string) => string },
    handle: (evaluation: EvaluationRow, path: string) => Promise<Response>,
  ): Promise<Response> => {
    const evaluation = await evaluationOf(c);
    if (evaluation instanceof Response) return evaluation;
    const path = labelPath(evaluation.id);
    if (posted && !fromThisSite(c)) return refused(c, path);
    try {
      return await handle(evaluation, path);
    } catch (error) {
      if (error instanceof LabellingInputError) return badRequest(c, error, back(path));
      throw error;
    }
  };

  app.get("/evaluations/:id/label", (c) =>
    labelling(c, {}, async (evaluation) => {
      const query = parsed(PageQuery, c.req.query(), "query");
      const rater = currentRater(c);
      if (rater === undefined || query.rater === "change") return page(c, raterPage(evaluation, rater));
      return page(c, await labellingPage(context, evaluation, rater, query));
    }),
  );

  app.post("/evaluations/:id/label", (c) =>
    labelling(c, { posted: true }, async (evaluation, path) => {
      const rater = currentRater(c);
      if (rater === undefined)
        throw new LabellingInputError("rater", "no rater is set in this browser; give your name first");
      const form = parsed(LabelForm, await c.req.parseBody(), "form");
      const kept = await keptInput(store, evaluation.id);
      const item = labellingQueue(await store.scores.forEvaluation(evaluation.id), kept).find(
        (i) => i.key === form.item,
      );
      if (!item) throw new LabellingInputError("item", "expected an item of this evaluation's queue");
      await store.labels.save({
        evaluation_id: evaluation.id,
        dimension: item.dimension,
        proposition_id: item.proposition_id,
        agent_id: item.agent_id,
        message_id: item.message_id,
        channel: item.channel,
        rater,
        score: form.score,
        note: form.note === undefined || form.note === "" ? null : form.note,
      });
      return c.redirect(hrefWith(path, { after: item.key }), 303);
    }),
  );

  app.post("/evaluations/:id/label/rater", (c) =>
    labelling(c, { posted: true, back: (path) => `${path}?rater=change` }, async (_, path) => {
      const { rater } = parsed(RaterForm, await c.req.parseBody(), "form");
      setCookie(c, RATER_COOKIE, rater, {
        httpOnly: true,
        sameSite: "Strict",
        path: "/",
        // A year: a name, not a credential; the session cookie decides who may post.
        maxAge: 365 * 24 * 60 * 60,
        secure: new URL(c.req.url).protocol === "https:",
      });
      return c.redirect(path, 303);
    }),
  );

  return app;
}

/** The rater this browser named, when its cookie holds a valid name (anything else is no rater). */
function currentRater(c: Context): string | undefined {
  const result = RaterName.safeParse(getCookie(c, RATER_COOKIE));
  return result.success ? result.data : undefined;
}

function raterPage(evaluation: EvaluationRow, rater: string | undefined): Html {
  return layout({
    title: "Who is labelling?",
    section: "runs",
    body: html`<h1>Who is labelling?</h1>
<p>Labels record who gave them, so that several people's labels of the same items can be compared. The
dashboard's token is shared, so give your name (or initials) once; this browser keeps it.</p>
<form class="rater-form" method="post" action="${labelPath(evaluation.id)}/rater">
<label for="rater">Your name</label>
<input id="rater" name="rater" value="${rater ?? ""}" maxlength="64" required autofocus>
<p class="muted">1 to 64 letters, digits, spaces, dots, underscores or hyphens.</p>
<button type="submit">Start labelling</button>
</form>`,
  });
}

async function labellingPage(
  { store }: DashboardContext,
  evaluation: EvaluationRow,
  rater: string,
  query: z.infer<typeof PageQuery>,
): Promise<Html> {
  const kept = await keptInput(store, evaluation.id);
  const queue = labellingQueue(await store.scores.forEvaluation(evaluation.id), kept);
  const mine = new Map(
    (await store.labels.forEvaluation(evaluation.id, { rater })).map((l) => [labelItemKey(l), l]),
  );
  const position = new Map(queue.map((item, i) => [item.key, i]));
  const done = queue.filter((item) => mine.has(item.key)).length;
  const path = labelPath(evaluation.id);

  let current: LabellingItem | undefined;
  if (query.item !== undefined) {
    current = queue[position.get(query.item) ?? -1];
    if (!current) throw new LabellingInputError("item", "expected an item of this evaluation's queue");
  } else {
    // The next item this rater has not labelled, after the one just saved or skipped, wrapping round.
    const start = query.after !== undefined ? (position.get(query.after) ?? -1) + 1 : 0;
    for (let step = 0; step < queue.length && !current; step++) {
      const item = queue[(start + step) % queue.length]!;
      if (!mine.has(item.key)) current = item;
    }
  }

  const title = `Label ${shortId(evaluation.id)}`;
  const body = html`<h1>Label evaluation ${shortId(evaluation.id)} <span class="muted">${evaluation.source} · ${when(evaluation.created_at)}</span></h1>
<p class="labelling-rater">Labelling as <strong>${rater}</strong> · <a href="${hrefWith(path, { rater: "change" })}">change</a></p>
<p class="labelling-progress"><progress max="${queue.length}" value="${done}"></progress> <span>${done} of ${queue.length} labelled by you</span></p>
<p class="muted">Blind labelling: the judge's verdict is not shown on this page, before or after you save, so that it cannot anchor your score. Compare with the judge once you are done: export the labels and run <code>dramaturg calibrate</code>.</p>
${
  queue.length === 0
    ? html`<p>This evaluation has no item a label can target (ideas quantity is a count, and verdicts given without the judge are left out).</p>`
    : current
      ? await itemSection(store, evaluation, kept, current, mine.get(current.key), path)
      : html`<section class="labelling-done"><h2>All ${queue.length} items labelled</h2><p>Every item of this evaluation has your label. Change any of them below, or export them.</p></section>`
}
${exportLinks(evaluation)}
${yourLabels(queue, mine, path)}`;
  return layout({ title, section: "runs", body });
}

async function itemSection(
  store: DashboardContext["store"],
  evaluation: EvaluationRow,
  kept: Awaited<ReturnType<typeof keptInput>>,
  item: LabellingItem,
  label: LabelRow | undefined,
  path: string,
): Promise<Html> {
  const evidence = await itemEvidence(store, evaluation, kept, item);
  const target =
    item.message_id !== null
      ? html`message <code>${item.message_id}</code> of ${evidence.speaker ?? item.agent_id}`
      : item.agent_id !== null
        ? html`${evidence.speaker ?? item.agent_id} as a whole`
        : html`channel <code>${item.channel}</code>`;
  return html`<section class="labelling-item" aria-labelledby="item-title">
<h2 id="item-title">${item.dimension} · ${item.proposition_id} <span class="muted">on ${target}</span></h2>
${claimBlock(evidence)}
${messageBlock(evidence)}
${personaBlock(evidence)}
${
  evidence.window
    ? html`<details class="judge-window"><summary>What the judge read: ${evidence.window.title}</summary><pre>${evidence.window.text}</pre></details>`
    : html`<p class="muted">The window the judge read is not kept with this evaluation.</p>`
}
<form class="label-form" method="post" action="${path}">
<input type="hidden" name="item" value="${item.key}">
<fieldset class="score-scale"><legend>How far does the claim hold? 0 not at all · 9 fully</legend>
${Array.from(
  { length: 10 },
  (_, s) =>
    html`<label><input type="radio" name="score" value="${s}"${s === 0 ? html` required` : ""}${label?.score === s ? html` checked` : ""}> ${s}</label>`,
)}
</fieldset>
<label for="note">Note <span class="muted">(optional: why, for where you and the judge disagree)</span></label>
<textarea id="note" name="note" rows="3" maxlength="${MAX_NOTE}">${label?.note ?? ""}</textarea>
<p class="label-actions"><button type="submit">Save and next</button> <a class="skip" href="${hrefWith(path, { after: item.key })}">Skip</a></p>
</form>
</section>`;
}

function claimBlock(evidence: ItemEvidence): Html {
  return html`<blockquote class="claim">${evidence.claim ?? "The claim is not kept with this evaluation."}</blockquote>
<p class="muted">Your score is the claim's raw truth, 0–9, before inversion: how far the claim holds of this target.${
    evidence.inverted
      ? html` <strong>This claim is inverted</strong> (it says what should not happen): a high score says the agent did badly; the judge's score is flipped to 9 − raw only afterwards.`
      : ""
  }</p>`;
}

function messageBlock(evidence: ItemEvidence): Html {
  const m = evidence.message;
  if (!m) return html``;
  return html`<h3>The message</h3>
<p class="muted">${evidence.speaker} in <code>${m.channel}</code>${m.recipient ? html` to ${m.recipient}` : ""} · <code>${m.id}</code></p>
<p class="message-text">${m.text}</p>`;
}

function personaBlock(evidence: ItemEvidence): Html {
  if (evidence.persona === undefined || evidence.persona === null) return html``;
  const text =
    typeof evidence.persona === "string" ? evidence.persona : JSON.stringify(evidence.persona, null, 2);
  return html`<details class="persona" open><summary>${evidence.speaker ?? "The agent"}'s persona</summary><pre>${text}</pre></details>`;
}

function exportLinks(evaluation: EvaluationRow): Html {
  const api = `/api/evaluations/${evaluation.id}/labels`;
  return html`<p class="labelling-export">Export every rater's labels as <code>dramaturg.labels/v1</code>: ${EXPORT_FORMATS.map(
    (format, i) =>
      html`${i > 0 ? " · " : ""}<a href="${hrefWith(api, { format })}" download>${format.toUpperCase()}</a>`,
  )} — then <code>dramaturg calibrate --labels FILE --run ${shortId(evaluation.id)}</code>.</p>`;
}

function yourLabels(
  queue: readonly LabellingItem[],
  mine: ReadonlyMap<string, LabelRow>,
  path: string,
): Html {
  const labelled = queue.filter((item) => mine.has(item.key));
  if (labelled.length === 0) return html``;
  return html`<section class="your-labels"><h2>Your labels</h2>
<table class="labels"><thead><tr><th>Item</th><th class="num">Score</th><th>Note</th><th></th></tr></thead>
<tbody>${labelled.map((item) => {
    const label = mine.get(item.key)!;
    const target =
      item.message_id ?? (item.agent_id !== null ? `${item.agent_id} (whole)` : `#${item.channel}`);
    return html`<tr><td>${item.dimension} · ${item.proposition_id} · ${target}</td><td class="num">${label.score}</td><td>${label.note ?? ""}</td><td><a href="${hrefWith(path, { item: item.key })}">edit</a></td></tr>`;
  })}</tbody></table></section>`;
}
