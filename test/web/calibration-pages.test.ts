import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CalibrationResult, calibrate } from "../../src/calibration/index.ts";
import { createServerApp } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { ENSEMBLE_LABELS, evaluateEnsemble } from "../calibration/ensemble.ts";
import {
  HOSTILE_MESSAGE,
  HOSTILE_NOTE,
  HOSTILE_WARNING,
  handMadeCalibration,
  storeCalibration,
} from "./calibration-store.ts";

let empty: Store;
let store: Store;
let app: ReturnType<typeof createServerApp>;
let evaluationId: string;
let firstRunId: string;
/** Oldest first: the engine's calibration of the ensemble, the hand-made one, an older document, a pending one. */
let real: CalibrationResult;
let handMade: string;
let older: string;
let pending: string;

beforeAll(async () => {
  empty = await openStore("memory://");
  store = await openStore("memory://");
  evaluationId = await evaluateEnsemble(store);
  firstRunId = (await store.runs.list({ evaluation: evaluationId, limit: 100 })).at(-1)!.id;
  real = await calibrate({ store, labels: ENSEMBLE_LABELS, run: evaluationId, resamples: 50 });
  handMade = await storeCalibration(store, handMadeCalibration({ calibrated: evaluationId }));
  older = await storeCalibration(store, handMadeCalibration({ warnings: null }));
  pending = (await store.evaluations.create({ kind: "calibration", source: "labels.yaml", config: {} })).id;
  app = createServerApp({ store });
}, 60_000);

afterAll(async () => {
  await empty.close();
  await store.close();
});

const page = async (path: string, server = app) => {
  const response = await server.request(path);
  return { status: response.status, text: await response.text() };
};
const json = async (path: string) => {
  const response = await app.request(path);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

/** The text between an element's opening tag and the next occurrence of its closing tag. */
const section = (text: string, start: string, end = "</table>") => {
  const from = text.indexOf(start);
  expect(from, start).toBeGreaterThanOrEqual(0);
  return text.slice(from, text.indexOf(end, from));
};

const ci = (interval: [number, number] | null) =>
  `<span class="ci">${interval![0].toFixed(2)}–${interval![1].toFixed(2)}</span>`;

describe("/calibrations", () => {
  it("an empty store says what to run to make one", async () => {
    const { status, text } = await page("/calibrations", createServerApp({ store: empty }));
    expect(status).toBe(200);
    expect(text).toContain("Nothing here yet");
    expect(text).toContain("dramaturg calibrate --labels labels.yaml --run EVALUATION_ID");
  });

  it("is in every page's navigation, current on its own", async () => {
    expect((await page("/runs")).text).toContain('<a href="/calibrations">Calibration</a>');
    expect((await page("/calibrations")).text).toContain(
      '<a href="/calibrations" aria-current="page">Calibration</a>',
    );
  });

  it("lists the calibrations newest first, each linked", async () => {
    const { status, text } = await page("/calibrations");
    expect(status).toBe(200);
    const order = [...text.matchAll(/<a href="\/calibrations\/([0-9a-f-]{36})">/g)].map((m) => m[1]);
    expect(order).toEqual([pending, older, handMade, real.evaluation_id]);
  });

  it("shows the judge, the evaluation calibrated as a link to its run, the labels, items, κ with its CI and the flagged count", async () => {
    const { text } = await page("/calibrations");
    const row = section(text, `<a href="/calibrations/${handMade}">`, "</tr>");
    const doc = handMadeCalibration();
    expect(row).toContain("openai:gpt-4o-mini");
    expect(row).toContain(`<a href="/runs/${firstRunId}">${evaluationId.slice(0, 8)}</a>`);
    expect(row).toContain("labels/&lt;rater-b&gt;.csv");
    expect(row).toContain(`<td class="num">${doc.overall.n}</td>`);
    expect(row).toContain(`${doc.overall.kappa_quadratic!.toFixed(2)}${ci(doc.overall.ci.kappa_quadratic)}`);
    expect(row).toContain("2 of 5");
    expect(row).toContain('<span class="tag warning"');
    // A pending calibration has no figures yet.
    expect(section(text, `<a href="/calibrations/${pending}">`, "</tr>")).toContain("pending");
  });

  it("flagged only keeps the calibrations with a flagged proposition", async () => {
    const { text } = await page("/calibrations?failures=1");
    expect(text).toContain(`/calibrations/${handMade}"`);
    expect(text).toContain(`/calibrations/${older}"`);
    expect(text).not.toContain(`/calibrations/${pending}"`);
    const realFlagged = real.propositions.some((p) => p.flagged);
    expect(text.includes(`/calibrations/${real.evaluation_id}"`)).toBe(realFlagged);
  });

  it("pages with the cursor and filters by agent, like the other lists", async () => {
    const first = await page("/calibrations?limit=2");
    const next = first.text.match(/<a rel="next" href="([^"]+)">/)![1]!.replaceAll("&amp;", "&");
    const second = await page(next);
    expect(second.text).toContain(`/calibrations/${handMade}"`);
    expect(second.text).not.toContain(`/calibrations/${pending}"`);
    expect((await page("/calibrations?agent=nobody")).text).toContain("No calibration matches these filters");
    expect((await page("/calibrations?agent=mallory")).text).toContain(`/calibrations/${handMade}"`);
  });

  it("sorts a page by κ, undefined last", async () => {
    const { text } = await page("/calibrations?sort=kappa&order=asc");
    const order = [...text.matchAll(/<a href="\/calibrations\/([0-9a-f-]{36})">/g)].map((m) => m[1]);
    expect(order.at(-1)).toBe(pending);
  });

  it.each([
    ["/calibrations?since=yesterday", "since"],
    ["/calibrations?sort=bogus", "sort"],
    ["/calibrations?cursor=nope", "cursor"],
  ])("%s is a 400 naming the parameter", async (path, parameter) => {
    const { status, text } = await page(path);
    expect(status).toBe(400);
    expect(text).toContain(`The <code>${parameter}</code> parameter`);
  });
});

describe("/calibrations/:id", () => {
  it("shows the warnings first, escaped", async () => {
    const { status, text } = await page(`/calibrations/${handMade}`);
    expect(status).toBe(200);
    const warnings = text.indexOf("calibration-warnings");
    expect(warnings).toBeGreaterThan(0);
    expect(warnings).toBeLessThan(text.indexOf("<h2>Agreement</h2>"));
    expect(text).toContain("The judge &lt;b&gt;shares&lt;/b&gt; the agents&#39; model family");
    expect(text).not.toContain(HOSTILE_WARNING);
  });

  it("shows every figure overall and per dimension with its 95 % CI", async () => {
    const { text } = await page(`/calibrations/${handMade}`);
    const doc = handMadeCalibration();
    const table = section(text, '<table class="agreement">');
    expect(table).toContain(
      `<td class="num">${doc.overall.spearman!.toFixed(2)}${ci(doc.overall.ci.spearman)}</td>`,
    );
    expect(table).toContain(
      `<td class="num">${doc.overall.kappa_quadratic!.toFixed(2)}${ci(doc.overall.ci.kappa_quadratic)}</td>`,
    );
    const exact = doc.overall.ci.exact!;
    expect(table).toContain(`${Math.round(exact[0] * 100)}–${Math.round(exact[1] * 100)} %`);
    for (const d of doc.dimensions) expect(table).toContain(`<th scope="row">${d.dimension}</th>`);
    expect(table.match(/<th class="num"/g)).toHaveLength(10);
  });

  it("puts the raters' ceiling beside the judge's α, and draws the band confusion matrix", async () => {
    const { text } = await page(`/calibrations/${handMade}`);
    const doc = handMadeCalibration();
    const ceiling = section(text, '<table class="ceiling">');
    expect(ceiling).toContain(`${doc.raters.alpha_interval!.toFixed(2)}${ci(doc.raters.ci.alpha_interval)}`);
    expect(ceiling).toContain(`${doc.overall.alpha_interval!.toFixed(2)}`);
    const confusion = section(text, '<table class="confusion">');
    expect(confusion.match(/<tr><th scope="row">/g)).toHaveLength(5);
    const counted = [...confusion.matchAll(/<td class="num(?: agree)?">(\d+)<\/td>/g)].map((m) =>
      Number(m[1]),
    );
    expect(counted).toEqual(doc.overall.confusion.counts.flat());
    expect(text).toContain('<table class="fails">');
  });

  it("lists the flagged propositions first, then the rest by κ ascending with an undefined κ last", async () => {
    const { text } = await page(`/calibrations/${handMade}`);
    const order = [
      ...section(text, '<table class="calibration-propositions">').matchAll(/data-proposition="([^"]+)"/g),
    ].map((m) => m[1]);
    const doc = handMadeCalibration();
    const kappa = (id: string) => doc.propositions.find((p) => p.proposition_id === id)!.kappa_quadratic;
    expect(order.slice(0, 2).sort()).toEqual(["persona-style", "stays-on-topic"]);
    expect(kappa(order[0]!)!).toBeLessThanOrEqual(kappa(order[1]!)!);
    const rest = order.slice(2);
    expect(rest.at(-1)).toBe("always-same");
    expect(kappa("always-same")).toBeNull();
    expect(kappa(rest[0]!)!).toBeLessThanOrEqual(kappa(rest[1]!)!);
    const tooFew = section(text, 'data-proposition="too-few-items"', "</tr>");
    expect(tooFew).toContain("too few");
  });

  it("shows a flagged proposition's disagreements side by side, the agent's text escaped", async () => {
    const { text } = await page(`/calibrations/${handMade}`);
    const flagged = section(text, "<h3>adherence / persona-style");
    expect(flagged).toContain("Mallory &lt;Admin&gt;");
    expect(flagged).toContain("<code>m7</code>");
    expect(flagged).toContain("&lt;script&gt;alert(&#39;calibration&#39;)&lt;/script&gt; I never rehearse.");
    expect(flagged).toContain(
      '<strong>ana</strong>: 2 — <span class="note">&lt;img src=x onerror=alert(1)&gt;',
    );
    expect(flagged).toContain("<strong>ben</strong>: 3");
    expect(flagged).toContain('<td class="num">9</td>');
    expect(flagged).toContain("Judge says: &lt;i&gt;fully&lt;/i&gt; in character.");
    expect(text).not.toContain(HOSTILE_MESSAGE);
    expect(text).not.toContain(HOSTILE_NOTE);
    expect(text).not.toMatch(/<script(?![^>]*\bsrc=)/);
  });

  it("renders a document stored without warnings or a propositions hash (an older version)", async () => {
    const { status, text } = await page(`/calibrations/${older}`);
    expect(status).toBe(200);
    expect(text).not.toContain("calibration-warnings");
    expect(text).toContain("<dt>Rubric</dt><dd><code>—</code></dd>");
  });

  it("renders the engine's own calibration of the ensemble", async () => {
    const { status, text } = await page(`/calibrations/${real.evaluation_id}`);
    expect(status).toBe(200);
    for (const p of real.propositions) expect(text).toContain(`data-proposition="${p.proposition_id}"`);
    expect(text).toContain(`<code>${real.propositions_hash}</code>`);
  });

  it("says when a calibration has no result yet", async () => {
    const { status, text } = await page(`/calibrations/${pending}`);
    expect(status).toBe(200);
    expect(text).toContain("is pending; it has no result yet");
  });

  it("the run page of the evaluation calibrated links to its calibrations", async () => {
    const { text } = await page(`/runs/${firstRunId}`);
    const links = section(text, '<p class="calibration-links">', "</p>");
    expect(links).toContain(`<a href="/calibrations/${handMade}">`);
    expect(links).toContain(`<a href="/calibrations/${real.evaluation_id}">`);
    expect(links).not.toContain(older);
  });

  it("a run whose evaluation has no calibration says so, links to its labelling queue and gives the exact commands", async () => {
    const other = await evaluateEnsemble(store, { dimensions: ["fluency"] });
    const [run] = await store.runs.list({ evaluation: other, limit: 1 });
    const text = (await page(`/runs/${run!.id}`)).text;
    expect(text).not.toContain("calibration-links");
    const labels = section(text, '<section class="people-labels">', "</section>");
    expect(labels).toContain(`<a href="/runs/${run!.id}/label">Label this run's verdicts</a> · no label yet`);
    expect(labels).toContain("No calibration has used this evaluation yet.");
    expect(store.location).toBe("memory://");
    expect(labels).toContain("This server's store is <code>memory://</code>, which lives in its process");
    expect(labels).toContain(
      `dramaturg labels export --run ${other.slice(0, 8)} --format csv --out labels.csv\ndramaturg calibrate --labels labels.csv --run ${other.slice(0, 8)}`,
    );
  });

  it("a labelled run counts its labels by rater and links to their export", async () => {
    const [run] = await store.runs.list({ evaluation: evaluationId, limit: 1 });
    const target = { dimension: "adherence", proposition_id: "persona-traits", agent_id: run!.agent_id };
    await store.labels.save({ evaluation_id: evaluationId, rater: "ana", score: 7, ...target });
    await store.labels.save({ evaluation_id: evaluationId, rater: "ben", score: 6, ...target });
    const raters = await store.labels.countByRater(evaluationId);
    expect(raters).toEqual([
      { rater: "ana", labels: 1 },
      { rater: "ben", labels: 1 },
    ]);
    const labels = section(
      (await page(`/runs/${run!.id}`)).text,
      '<section class="people-labels">',
      "</section>",
    );
    const total = raters.reduce((n, r) => n + r.labels, 0);
    expect(labels).toContain(
      `${total} labels by ${raters.map((r) => `${r.rater} (${r.labels})`).join(", ")}`,
    );
    expect(labels).toContain(
      `<a href="/api/evaluations/${evaluationId}/labels?format=csv">export them (CSV)</a>`,
    );
  });

  it("a bad id is a 400 page, an unknown one or another kind's a 404", async () => {
    const bad = await page("/calibrations/not-a-uuid");
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("The <code>id</code> parameter");
    expect(bad.text).toContain('<a href="/calibrations">Back to the list</a>');
    expect((await page("/calibrations/00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await page(`/calibrations/${evaluationId}`)).status).toBe(404);
  });
});

describe("a server with a token", () => {
  it("keeps the calibration pages and API behind it", async () => {
    const guarded = createServerApp({ store, token: "calibration-pages-token-0123456789abcdef" });
    for (const path of [
      "/calibrations",
      `/calibrations/${handMade}`,
      "/api/calibrations",
      `/api/calibrations/${handMade}`,
    ]) {
      const { status, text } = await page(path, guarded);
      expect([302, 401], path).toContain(status);
      expect(text).not.toContain(handMade);
    }
  });
});

describe("the calibrations API", () => {
  it("GET /api/calibrations lists them newest first with their headline figures", async () => {
    const { status, body } = await json("/api/calibrations");
    expect(status).toBe(200);
    const lines = body.calibrations as Record<string, unknown>[];
    expect(lines.map((l) => l.id)).toEqual([pending, older, handMade, real.evaluation_id]);
    const doc = handMadeCalibration();
    expect(lines[2]).toEqual({
      id: handMade,
      created_at: expect.any(String),
      status: "completed",
      judge: { provider: "openai", model: "gpt-4o-mini" },
      judged: false,
      calibrated_evaluation: evaluationId,
      labels: doc.labels,
      n: doc.overall.n,
      n_judged: doc.overall.n_judged,
      kappa_quadratic: doc.overall.kappa_quadratic,
      kappa_ci: doc.overall.ci.kappa_quadratic,
      propositions: 5,
      flagged: 2,
      minimum_kappa: 0.6,
      warnings: [HOSTILE_WARNING],
    });
    expect(lines[0]).toMatchObject({ status: "pending", n: null, flagged: null, warnings: [] });
    expect(body.next_cursor).toBeNull();
  });

  it("pages with next_cursor and filters by agent", async () => {
    const first = await json("/api/calibrations?limit=3");
    expect((first.body.calibrations as unknown[]).length).toBe(3);
    const second = await json(`/api/calibrations?limit=3&cursor=${first.body.next_cursor}`);
    expect((second.body.calibrations as { id: string }[]).map((l) => l.id)).toEqual([real.evaluation_id]);
    const none = await json("/api/calibrations?agent=nobody");
    expect(none.body.calibrations).toEqual([]);
  });

  it("GET /api/calibrations/:id is the document as stored", async () => {
    const { status, body } = await json(`/api/calibrations/${handMade}`);
    expect(status).toBe(200);
    expect(body).toEqual(await store.evaluations.result(handMade));
    expect(body.format).toBe("dramaturg.calibration/v1");
    expect(body.evaluation_id).toBe(handMade);
    expect((await json(`/api/calibrations/${real.evaluation_id}`)).body).toEqual(
      JSON.parse(JSON.stringify(real)),
    );
  });

  it.each([
    ["/api/calibrations/not-a-uuid", 400, "id"],
    ["/api/calibrations?limit=0", 400, "limit"],
    ["/api/calibrations?since=yesterday", 400, "since"],
    ["/api/calibrations?cursor=nope", 400, "cursor"],
  ])("%s is a %i naming %s", async (path, code, where) => {
    const { status, body } = await json(path);
    expect(status).toBe(code);
    expect((body.error as { path?: string }).path).toBe(where);
  });

  it("an unknown id or another kind's is a 404, a pending calibration a 409", async () => {
    expect((await json("/api/calibrations/00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await json(`/api/calibrations/${evaluationId}`)).status).toBe(404);
    const { status, body } = await json(`/api/calibrations/${pending}`);
    expect(status).toBe(409);
    expect((body.error as { code: string }).code).toBe("not_completed");
  });
});
