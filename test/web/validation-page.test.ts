// The Validations pages over HTTP (`app.request()`): the list, a validation's page with each question's
// verdict first and its reasons, the two distributions as inline SVG, every question name escaped; the API's
// document; and the experiment page's link to the validations that name it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerApp } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import {
  type QuestionAnswers,
  storeValidation,
  type Validation,
  validateAnswers,
} from "../../src/validation/index.ts";
import { storeExperiment } from "../kinds/stored-outputs.ts";

let store: Store;
let app: ReturnType<typeof createServerApp>;
let experiment: string;
let id: string;
let validation: Validation;

const SCRIPT = "<script>alert(1)</script>";

beforeAll(async () => {
  store = await openStore("memory://");
  experiment = await storeExperiment(store);
  validation = validateAnswers({
    real: "real.csv",
    simulated: "simulated.csv",
    questions: [
      {
        kind: "categorical",
        question: SCRIPT,
        categories: ["a", "b", "c"],
        real: Array.from({ length: 60 }, (_, i) => i % 3),
        simulated: Array.from({ length: 60 }, (_, i) => (i % 10 === 0 ? 1 : 0)),
      },
      { kind: "numeric", question: "Age", real: [20, 35, 50, 65], simulated: [30, 33, 36, 39] },
    ] satisfies QuestionAnswers[],
  });
  ({ evaluation_id: id, validation } = await storeValidation({
    store,
    validation,
    name: `survey ${SCRIPT}`,
    experiment,
    numeric: new Map([["Age", { real: [20, 35, 50, 65], simulated: [30, 33, 36, 39] }]]),
  }));
  app = createServerApp({ store });
}, 120_000);
afterAll(async () => {
  await store.close();
});

const page = async (path: string) => {
  const response = await app.request(path);
  return { status: response.status, text: await response.text(), headers: response.headers };
};

describe("the Validations pages", () => {
  it("list the validation with its name escaped, its experiment and its verdicts", async () => {
    const { status, text } = await page("/validations");
    expect(status).toBe(200);
    expect(text).toContain(`<a href="/validations/${id}">`);
    expect(text).toContain("survey &lt;script&gt;alert(1)&lt;/script&gt;");
    expect(text).toContain(`<a href="/experiments/${experiment}">`);
    expect(text).not.toContain(SCRIPT);
    expect(text).toContain('aria-current="page">Validations</a>');
    // Filtered by time only: a validation names no agent.
    expect(text).toContain('<input name="since"');
    expect(text).not.toContain('<input name="agent"');
  });

  it("show each question's verdict first, with its reasons, and its name as text", async () => {
    const { status, text } = await page(`/validations/${id}`);
    expect(status).toBe(200);
    expect(text).not.toContain(SCRIPT);
    const table = text.match(/<table class="validation-questions">([\s\S]*?)<\/table>/)![1]!;
    const rows = [
      ...table.matchAll(
        /<tr class="[^"]*">\n<td><strong class="verdict (\w+)">\w+<\/strong><ul class="reasons">([\s\S]*?)<\/ul><\/td>\n<th scope="row">([^<]*)<\/th>/g,
      ),
    ];
    expect(rows.map((r) => [r[1], r[3]])).toEqual([
      [validation.questions[0]!.verdict, "&lt;script&gt;alert(1)&lt;/script&gt;"],
      [validation.questions[1]!.verdict, "Age"],
    ]);
    expect(validation.questions[0]!.verdict).not.toBe("consistent");
    const reasons = [...rows[0]![2]!.matchAll(/<li>/g)];
    expect(reasons).toHaveLength(validation.questions[0]!.reasons.length);
  });

  it("draw both distributions inline as SVG with no script or style, the numeric one from its kept answers", async () => {
    const { text, headers } = await page(`/validations/${id}`);
    const svg = text.match(/<figure class="validation-chart"><svg [\s\S]*?<\/svg>\n<\/figure>/)?.[0];
    expect(svg).toBeDefined();
    expect(svg).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(svg).not.toMatch(/<script|style=|on\w+=/i);
    // No fixed size: it takes the page's width (a phone's) at its viewBox's aspect ratio.
    expect(svg).toMatch(
      /^<figure class="validation-chart"><svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 \d+ \d+"/,
    );
    // The Age panel has its histogram: bars of both sides beyond the legend's two squares.
    const age = svg!.slice(svg!.indexOf(">Age</text>"));
    expect(age.match(/fill="#4f6d8a"\/>/g)!.length).toBeGreaterThan(1);
    // The CSP forbids inline scripts and styles; markup is not either.
    const csp = headers.get("content-security-policy")!;
    expect(csp).toMatch(/script-src 'self'/);
    expect(csp).not.toMatch(/unsafe-inline/);
  });

  it("answer the document through the API as validate --format json printed it", async () => {
    const response = await app.request(`/api/validations/${id}`);
    expect(response.status).toBe(200);
    expect(validation.experiment).toBe(experiment);
    expect(await response.text()).toBe(JSON.stringify(validation));
    const list = (await (await app.request("/api/validations")).json()) as {
      validations: { id: string; failed: number }[];
    };
    expect(list.validations).toMatchObject([{ id, failed: validation.summary.failed }]);
    expect((await app.request(`/validations/${experiment}`)).status).toBe(404);
  });

  it("link the experiment's page to the validations that name it", async () => {
    const { status, text } = await page(`/experiments/${experiment}`);
    expect(status).toBe(200);
    expect(text).toContain('<section id="validations"><h2>Validated against real people</h2>');
    expect(text).toContain(`<a href="/validations/${id}">`);
  });
});

describe("a server with a token", () => {
  it("keeps the validation pages and API behind it", async () => {
    const guarded = createServerApp({ store, token: "validation-pages-token-0123456789abcdef" });
    for (const path of ["/validations", `/validations/${id}`, "/api/validations", `/api/validations/${id}`]) {
      const response = await guarded.request(path);
      expect([302, 401], path).toContain(response.status);
      expect(await response.text()).not.toContain(id);
    }
  });
});
