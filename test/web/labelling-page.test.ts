// The labelling page over HTTP (no browser): the rater's name, the queue in its documented order, saving
// and replacing a label, blind labelling, the same-origin check, bad input as a 400 naming the field,
// escaped agent text, the token, and the export that `calibrate` reads back as what was saved.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  calibrateStoredRun,
  LABELS_OUTPUT_FORMATS,
  labelItems,
  parseLabels,
} from "../../src/calibration/index.ts";
import { createJudge } from "../../src/judge/index.ts";
import { evaluatePersonas, parseStoredPersonaInput } from "../../src/personas/index.ts";
import { createServerApp } from "../../src/server/index.ts";
import { openStore, type ScoreRow, type Store } from "../../src/store/index.ts";
import { evaluateEnsemble } from "../calibration/ensemble.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const _ENSEMBLE = `${ROOT}examples/ensemble/`;
const TOKEN = "labelling-test-token-0123456789abcdef";

let store: Store;
let app: ReturnType<typeof createServerApp>;
let ensemble: string;
let injection: string;

beforeAll(async () => {
  store = await openStore("memory://");
  ensemble = await evaluateEnsemble(store);
  injection = (
    await evaluatePersonas({
      transcript: `${ROOT}test/fixtures/web/injection.transcript.json`,
      dimensions: ["adherence"],
      agents: ["mallory"],
      judge: createJudge(`fixtures:${ROOT}test/fixtures/web/injection.judge-fixtures.json`),
      store,
    })
  ).evaluation_id;
  app = createServerApp({ store });
}, 60_000);

afterAll(() => store?.close());

const raterCookie = (rater: string) => `dramaturg_rater=${encodeURIComponent(rater)}`;

function get(path: string, rater?: string): Promise<Response> {
  return Promise.resolve(app.request(path, { headers: rater ? { cookie: raterCookie(rater) } : {} }));
}

function post(
  path: string,
  fields: Record<string, string>,
  { rater, origin, site }: { rater?: string; origin?: string; site?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (rater) headers.cookie = raterCookie(rater);
  if (origin) headers.origin = origin;
  if (site) headers["sec-fetch-site"] = site;
  return Promise.resolve(
    app.request(path, { method: "POST", headers, body: new URLSearchParams(fields).toString() }),
  );
}

const labelPath = (id: string) => `/evaluations/${id}/label`;

/** The item a labelling page shows: its form's key and its heading. */
function shownItem(page: string): { key: string; heading: string } | undefined {
  const key = /name="item" value="([0-9a-f]{16})"/.exec(page)?.[1];
  const heading = /<h2 id="item-title">(.*?)<\/h2>/s.exec(page)?.[1];
  return key && heading ? { key, heading: heading.replace(/<[^>]+>/g, "") } : undefined;
}

async function saveCurrent(id: string, rater: string, score: number, note?: string) {
  const page = await (await get(labelPath(id), rater)).text();
  const item = shownItem(page)!;
  const saved = await post(
    labelPath(id),
    { item: item.key, score: String(score), ...(note !== undefined ? { note } : {}) },
    { rater },
  );
  expect(saved.status).toBe(303);
  return { item, page, next: saved.headers.get("location")! };
}

describe("the labelling page", () => {
  it("asks for the rater's name first, refuses a bad one naming the field, and keeps a good one in a strict cookie", async () => {
    const page = await get(labelPath(ensemble));
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain("Who is labelling?");
    expect(text).not.toContain('name="score"');

    const bad = await post(`${labelPath(ensemble)}/rater`, { rater: "<b>eve</b>" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/The <code>rater<\/code> field: expected letters, digits/);
    expect(bad.headers.get("set-cookie")).toBeNull();

    const good = await post(`${labelPath(ensemble)}/rater`, { rater: "  Ana B. " });
    expect(good.status).toBe(303);
    expect(good.headers.get("location")).toBe(labelPath(ensemble));
    const cookie = good.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^dramaturg_rater=Ana%20B\.;/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
  });

  it("shows the rater with a link to change it", async () => {
    const text = await (await get(labelPath(ensemble), "queue-reader")).text();
    expect(text).toContain("Labelling as <strong>queue-reader</strong>");
    expect(text).toContain(`href="${labelPath(ensemble)}?rater=change"`);
    const change = await (await get(`${labelPath(ensemble)}?rater=change`, "queue-reader")).text();
    expect(change).toContain('value="queue-reader"');
  });

  it("queues a message's items together, messages in transcript order, and moves on after each save", async () => {
    const kept = parseStoredPersonaInput(await store.evaluations.input(ensemble))!;
    const rows = await store.scores.forEvaluation(ensemble);
    const order = new Map(kept.transcript.messages.map((m, i) => [m.id, i]));
    // The first judged message, in transcript order, and its adherence propositions in id order.
    const first = rows
      .filter((r) => r.message_id !== null)
      .sort((a, b) => order.get(a.message_id!)! - order.get(b.message_id!)!)[0]!;
    const expected = [
      ...new Set(
        rows
          .filter((r) => r.message_id === first.message_id && r.dimension === "adherence")
          .map((r) => r.proposition_id),
      ),
    ].sort();
    const seen: string[] = [];
    for (let i = 0; i < expected.length; i++) {
      const { item } = await saveCurrent(ensemble, "queue-walker", 5);
      seen.push(item.heading);
    }
    expect(seen).toEqual(
      expected.map((p) => expect.stringContaining(`adherence · ${p} on message ${first.message_id}`)),
    );
    const after = await (await get(labelPath(ensemble), "queue-walker")).text();
    expect(after).toMatch(new RegExp(`${expected.length} of \\d+ labelled by you`));
  });

  it("skips to the next item without saving, and wraps round to the first unlabelled one", async () => {
    const page = await (await get(labelPath(ensemble), "skipper")).text();
    const first = shownItem(page)!;
    const skip = /<a class="skip" href="([^"]+)"/.exec(page)![1]!.replaceAll("&amp;", "&");
    const next = shownItem(await (await get(skip, "skipper")).text())!;
    expect(next.key).not.toBe(first.key);
    expect(await store.labels.forEvaluation(ensemble, { rater: "skipper" })).toEqual([]);
    // Without `after`, the queue starts again at the first item still unlabelled.
    expect(shownItem(await (await get(labelPath(ensemble), "skipper")).text())!.key).toBe(first.key);
  });

  it("saving an item again replaces its label, and the rater's labels link back to it", async () => {
    const { item } = await saveCurrent(ensemble, "replacer", 2, "first thoughts");
    const edit = `${labelPath(ensemble)}?item=${item.key}`;
    const page = await (await get(labelPath(ensemble), "replacer")).text();
    expect(page).toContain(`href="${edit.replace("?", "?")}"`);
    const editing = await (await get(edit, "replacer")).text();
    expect(editing).toContain('value="2" checked');
    expect(editing).toContain(">first thoughts</textarea>");
    const again = await post(
      labelPath(ensemble),
      { item: item.key, score: "7", note: "on reflection" },
      { rater: "replacer" },
    );
    expect(again.status).toBe(303);
    const labels = await store.labels.forEvaluation(ensemble, { rater: "replacer" });
    expect(labels).toHaveLength(1);
    expect(labels[0]).toMatchObject({ score: 7, note: "on reflection" });
  });

  it("is blind: the form page shows none of the judge's verdicts of its item", async () => {
    const page = await (await get(labelPath(ensemble), "blind")).text();
    const item = shownItem(page)!;
    const rows = await store.scores.forEvaluation(ensemble);
    const [dimension, proposition] = item.heading.split(" on ")[0]!.split(" · ");
    const messageId = /on message (\S+)/.exec(item.heading)![1];
    const verdicts = rows.filter(
      (r: ScoreRow) =>
        r.dimension === dimension && r.proposition_id === proposition && r.message_id === messageId,
    );
    expect(verdicts.length).toBeGreaterThan(0);
    for (const v of verdicts) if (v.reasoning.length > 10) expect(page).not.toContain(v.reasoning);
    expect(page).toContain("the judge's verdict is not shown");
    expect(page).not.toMatch(/judge[^<]{0,40}score[^<]{0,10}\d/i);
  });

  it("refuses a label posted from another origin, and stores nothing", async () => {
    const item = shownItem(await (await get(labelPath(ensemble), "mallet")).text())!;
    const refused = await post(
      labelPath(ensemble),
      { item: item.key, score: "4" },
      { rater: "mallet", origin: "https://attacker.example" },
    );
    expect(refused.status).toBe(403);
    const alsoRefused = await post(`${labelPath(ensemble)}/rater`, { rater: "mallet" }, { origin: "null" });
    expect(alsoRefused.status).toBe(403);
    expect(alsoRefused.headers.get("set-cookie")).toBeNull();
    expect(await store.labels.forEvaluation(ensemble, { rater: "mallet" })).toEqual([]);
    // A browser's Sec-Fetch-Site decides where it is sent: a cross-site post without an Origin is refused…
    const crossSite = await post(
      labelPath(ensemble),
      { item: item.key, score: "4" },
      { rater: "mallet", site: "cross-site" },
    );
    expect(crossSite.status).toBe(403);
    expect(await store.labels.forEvaluation(ensemble, { rater: "mallet" })).toEqual([]);
    // …and the server's own page is accepted though its Origin is "null" (as Chromium sends it under Referrer-Policy: no-referrer).
    const own = await post(
      labelPath(ensemble),
      { item: item.key, score: "4" },
      { rater: "mallet", origin: "null", site: "same-origin" },
    );
    expect(own.status).toBe(303);
    const same = await post(
      labelPath(ensemble),
      { item: item.key, score: "5" },
      { rater: "mallet", origin: "http://localhost" },
    );
    expect(same.status).toBe(303);
  });

  it.each([
    ["a score of 10", { score: "10" }, "score"],
    ["a fractional score", { score: "4.5" }, "score"],
    ["no score", {}, "score"],
    ["an unknown item", { item: "0123456789abcdef", score: "3" }, "item"],
    ["a note too long", { score: "3", note: "x".repeat(2001) }, "note"],
  ])("%s is a 400 naming the field, and nothing is stored", async (_, fields, field) => {
    const item = shownItem(await (await get(labelPath(ensemble), "careless")).text())!;
    const response = await post(labelPath(ensemble), { item: item.key, ...fields }, { rater: "careless" });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(`The <code>${field}</code> field:`);
    expect(await store.labels.forEvaluation(ensemble, { rater: "careless" })).toEqual([]);
  });

  it("a label posted without a rater is a 400 naming the rater", async () => {
    const item = shownItem(await (await get(labelPath(ensemble), "someone")).text())!;
    const response = await post(labelPath(ensemble), { item: item.key, score: "3" });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("The <code>rater</code> field:");
  });

  it("an id that is no persona evaluation is a 404, and a run's page leads to its evaluation's", async () => {
    expect((await get(labelPath("00000000-0000-4000-8000-000000000000"), "ana")).status).toBe(404);
    expect((await get(labelPath("nope"), "ana")).status).toBe(404);
    const [run] = await store.runs.list({ evaluation: ensemble });
    const redirect = await get(`/runs/${run!.id}/label`, "ana");
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toBe(labelPath(ensemble));
  });

  it("shows an agent's markup as text: the message, its name and its persona", async () => {
    const page = await (await get(labelPath(injection), "escaper")).text();
    expect(shownItem(page)!.heading).toContain("on message m1");
    expect(page).toContain("Morning all &lt;script&gt;alert(1)&lt;/script&gt;");
    expect(page).toContain("&lt;script&gt;alert(&#39;persona&#39;)&lt;/script&gt;");
    expect(page).not.toContain("<script>alert");
    expect(page).not.toContain("<img src=x");
  });

  it("behind a token, the page and its posts need it", async () => {
    const guarded = createServerApp({ store, token: TOKEN });
    const page = await guarded.request(labelPath(ensemble), { headers: { accept: "text/html" } });
    expect(page.status).toBe(401);
    const posted = await guarded.request(labelPath(ensemble), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: raterCookie("intruder") },
      body: "item=0123456789abcdef&score=3",
    });
    expect(posted.status).toBe(401);
    const exported = await guarded.request(`/api/evaluations/${ensemble}/labels`);
    expect(exported.status).toBe(401);
    const withToken = await guarded.request(labelPath(ensemble), {
      headers: { authorization: `Bearer ${TOKEN}`, cookie: raterCookie("ana") },
    });
    expect(withToken.status).toBe(200);
    expect(await store.labels.forEvaluation(ensemble, { rater: "intruder" })).toEqual([]);
  });
});

describe("the labels export", () => {
  it.each(LABELS_OUTPUT_FORMATS)(
    "as %s, calibrate reads back every saved label: the same items, raters, scores and notes",
    async (format) => {
      const response = await get(`/api/evaluations/${ensemble}/labels?format=${format}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-disposition")).toContain(
        `labels-${ensemble.slice(0, 8)}.${format}`,
      );
      const saved = await store.labels.forEvaluation(ensemble);
      expect(saved.length).toBeGreaterThan(3);
      const file = `exported.${format}`;
      const set = { files: [file], labels: parseLabels(await response.text(), file) };
      const kept = parseStoredPersonaInput(await store.evaluations.input(ensemble))!;
      const read = labelItems(set, kept).flatMap((item) =>
        item.raters.map((r) => ({
          target: [
            item.dimension,
            item.proposition_id,
            item.agent_id ?? null,
            item.message_id ?? null,
            item.channel ?? null,
          ],
          rater: r.rater,
          score: r.score,
          note: r.note ?? null,
        })),
      );
      const wrote = saved.map((l) => ({
        target: [l.dimension, l.proposition_id, l.agent_id, l.message_id, l.channel],
        rater: l.rater,
        score: l.score,
        note: l.note,
      }));
      const byKey = (x: { target: unknown[]; rater: string }) => JSON.stringify([x.target, x.rater]);
      expect([...read].sort((a, b) => byKey(a).localeCompare(byKey(b)))).toEqual(
        [...wrote].sort((a, b) => byKey(a).localeCompare(byKey(b))),
      );
      const result = await calibrateStoredRun({ store, id: ensemble, labels: set, resamples: 0 });
      expect(result.not_judged).toBe(0);
      expect(result.overall.n).toBe(new Set(wrote.map((w) => JSON.stringify(w.target))).size);
    },
  );

  it("a note with commas, quotes, a line break and a leading # survives every format", async () => {
    const item = shownItem(await (await get(labelPath(injection), "noter")).text())!;
    const note = '# "Hm", she said,\n  then: <b>no</b> ';
    await post(labelPath(injection), { item: item.key, score: "1", note }, { rater: "noter" });
    for (const format of LABELS_OUTPUT_FORMATS) {
      const text = await (await get(`/api/evaluations/${injection}/labels?format=${format}`)).text();
      const [label] = parseLabels(text, `x.${format}`);
      // The form trims what was typed; the rest is kept as written.
      expect(label).toMatchObject({ rater: "noter", score: 1, note: note.trim() });
    }
  });

  it("a bad format is a 400 naming it, and an unknown evaluation a 404", async () => {
    const bad = await get(`/api/evaluations/${ensemble}/labels?format=xml`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { path: string } }).error.path).toBe("format");
    expect((await get("/api/evaluations/00000000-0000-4000-8000-000000000000/labels")).status).toBe(404);
  });
});
