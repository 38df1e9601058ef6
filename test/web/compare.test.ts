// The comparison page over HTTP (`app.request()`): two runs of an agent side by side — per dimension and
// proposition both scores and Δ = b − a, the largest fall first — the verdicts that changed with both
// reasonings and the message, a warning when the runs are not comparable, and bad or unknown ids.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerApp } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { buildDrilldownStore, LONE_LOW } from "./drilldown-store.ts";

const dir = useTempDir("dramaturg-compare-");
let store: Store;
let app: ReturnType<typeof createServerApp>;
let runs: Awaited<ReturnType<typeof buildDrilldownStore>>;

beforeAll(async () => {
  store = await openStore("memory://");
  runs = await buildDrilldownStore(store, dir());
  app = createServerApp({ store });
}, 60_000);
afterAll(async () => {
  await store.close();
});

const page = async (path: string) => {
  const response = await app.request(path);
  return { status: response.status, text: await response.text() };
};

/** A table's body rows as lists of cell texts (markup stripped). */
function rows(text: string, tableClass: string): string[][] {
  const table = text.match(new RegExp(`<table class="${tableClass}">([\\s\\S]*?)</table>`))?.[1] ?? "";
  const body = table.slice(table.indexOf("<tbody>"));
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) =>
    [...r[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => c[1]!.replace(/<[^>]+>/g, "").trim()),
  );
}

const signed = (text: string) => Number(text.replace("−", "-").replace("±", ""));

describe("comparing two runs of an agent", () => {
  it("gives each dimension's and proposition's two scores and Δ = b − a, the largest fall first", async () => {
    const { status, text } = await page(`/compare?a=${runs.dovA}&b=${runs.dovB}`);
    expect(status).toBe(200);
    const dimensions = rows(text, "scores");
    expect(dimensions[0]![0]).toBe("adherence");
    const [, a, b, delta] = dimensions[0]!;
    expect(signed(delta!)).toBeCloseTo(Number(b) - Number(a), 1);
    expect(signed(delta!)).toBeLessThan(-1);
    const propositions = rows(text, "propositions");
    expect(propositions).toHaveLength(6);
    const deltas = propositions.map((p) => signed(p[4]!));
    expect(deltas).toEqual([...deltas].sort((x, y) => x - y));
    for (const [, , x, y, d] of propositions) expect(signed(d!)).toBeCloseTo(Number(y) - Number(x), 1);
    expect(text).toContain("the scores are comparable");
  });

  it("lists the verdicts that changed, the largest fall first, with both reasonings and the message", async () => {
    const { text } = await page(`/compare?a=${runs.dovA}&b=${runs.dovB}`);
    const changed = rows(text, "changed-verdicts");
    // Every one of Dov's 90 verdicts moved by 3, except those already at the end of the scale.
    expect(changed.length).toBeGreaterThan(60);
    const [proposition, target, trial, a, b, delta, before, after] = changed[0]!;
    expect(proposition).toBe("adherence / dov-warm-showman");
    expect(target).toContain("Dov Marchetti m36 · #on-air");
    expect(target).toContain("June! Love that for us"); // m36's text
    expect(trial).toBe("1");
    expect(a).toBe("6.0 ok");
    expect(b).toBe("0.0 ok");
    expect(delta).toBe("−6.0");
    expect(before).toContain("catchphrase");
    expect(after).toBe(LONE_LOW);
    const deltas = changed.map((c) => signed(c[5]!));
    expect(deltas).toEqual([...deltas].sort((x, y) => x - y));
  });

  it("shows a verdict whose status changed, and none that stayed the same", async () => {
    const { text } = await page(`/compare?a=${runs.inesA}&b=${runs.inesB}`);
    const changed = rows(text, "changed-verdicts");
    // Inés's second run differs only where the judge failed (m11, persona-knowledge).
    expect(changed).toHaveLength(1);
    expect(changed[0]![0]).toBe("adherence / persona-knowledge");
    expect(changed[0]![4]).toBe("— errored");
    expect(changed[0]![7]).toContain("MissingVerdictError");
  });

  it("warns when the runs are not comparable: different agents, propositions or persona", async () => {
    const { status, text } = await page(`/compare?a=${runs.inesA}&b=${runs.dovB}`);
    expect(status).toBe(200);
    expect(text).toContain("Not comparable as they stand");
    expect(text).toContain("they are runs of different agents (ines and dov)");
    expect(text).toContain("the persona differs");
  });

  it("answers a missing or malformed id with a 400 page naming the parameter, an unknown one with a 404", async () => {
    const missingB = await page(`/compare?a=${runs.dovA}`);
    expect(missingB.status).toBe(400);
    expect(missingB.text).toContain("The <code>b</code> parameter: expected a run id");
    const badA = await page(`/compare?a=not-a-run&b=${runs.dovB}`);
    expect(badA.status).toBe(400);
    expect(badA.text).toContain("The <code>a</code> parameter");
    const unknown = await page(`/compare?a=${runs.dovA}&b=00000000-0000-4000-8000-000000000000`);
    expect(unknown.status).toBe(404);
  });
});
