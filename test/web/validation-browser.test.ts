// The validation pages in real Chromium: the list, one validation (a question named as a script that must not
// run) with its chart drawn inline, and the experiment's link to it — no script error, no CSP refusal, and no
// sideways page scroll at a phone's width (390 px) or a desktop's.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { type QuestionAnswers, storeValidation, validateAnswers } from "../../src/validation/index.ts";
import { storeExperiment } from "../kinds/stored-outputs.ts";
import { useTempDir } from "../temp-dir.ts";
import { browserSuite, launchChromium, openWatched, skipBrowserTests } from "./chromium.ts";

const dir = useTempDir("dramaturg-validation-browser-");
const SCRIPT = "<script>alert('validation')</script>";
let store: Store;
let server: RunningServer;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let experiment: string;
let id: string;
const incidents: string[] = [];

beforeAll(async () => {
  if (skipBrowserTests) return;
  store = await openStore("memory://");
  experiment = await storeExperiment(store);
  const questions: QuestionAnswers[] = ["Vote", SCRIPT, "Price", "Taste"].map((question, q) => ({
    kind: "ordinal",
    question,
    scale: [1, 2, 3, 4, 5],
    real: Array.from({ length: 50 }, (_, i) => 1 + ((i + q) % 5)),
    simulated: Array.from({ length: 50 }, (_, i) => 2 + ((i + q) % 3)),
  }));
  ({ evaluation_id: id } = await storeValidation({
    store,
    validation: validateAnswers({ questions, real: "survey.csv", simulated: "agents.jsonl" }),
    experiment,
  }));
  server = await startServer({ db: store, port: 0 });
  chromium = await launchChromium(join(dir(), "chromium"));
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await server?.close();
  await store?.close();
});

describe.skipIf(skipBrowserTests)(browserSuite("the validation pages in Chromium"), () => {
  it("show the list, a validation with its chart and the experiment's link, at 390 and 1,280 px", async () => {
    for (const width of [390, 1280])
      for (const path of ["/validations", `/validations/${id}`, `/experiments/${experiment}`]) {
        const page = await openWatched(chromium.context, `${server.url}${path}`, {
          width,
          height: 800,
          incidents,
        });
        const scrollWidth = (await page.evaluate("document.documentElement.scrollWidth")) as number;
        expect(scrollWidth, `${path} at ${width}px`).toBeLessThanOrEqual(width);
        if (path === `/validations/${id}`) {
          // The chart is drawn, as wide as the page lets it be; the question's name is text, its script inert.
          const box = (await page.locator("figure.validation-chart svg").boundingBox())!;
          expect(box.width).toBeGreaterThan(width === 390 ? 250 : 600);
          expect(box.x + box.width).toBeLessThanOrEqual(width);
          await expect(
            page.locator("figure.validation-chart svg text", { hasText: SCRIPT }).count(),
          ).resolves.toBe(1);
          await expect(
            page.locator("table.validation-questions th", { hasText: SCRIPT }).count(),
          ).resolves.toBe(1);
        }
        if (path === `/experiments/${experiment}`)
          await expect(page.locator(`#validations a[href="/validations/${id}"]`).count()).resolves.toBe(1);
        await page.close();
      }
    expect(incidents).toEqual([]);
  }, 90_000);
});
