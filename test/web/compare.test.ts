// The comparison page over HTTP (`app.request()`): two runs of an agent side by side — per dimension and
// proposition both scores and Δ = b − a, the largest fall first — the verdicts that changed grouped by
// proposition (counts, a filter) with the reasonings diffed and the message, a warning when the runs are not
// comparable, runs named by short ids, the run picker, and bad or unknown ids.
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

/** The body rows of every table of a class, as lists of cell texts (markup stripped), table after table. */
function rows(text: string, tableClass: string): string[][] {
  return tableBodies(text, tableClass).flat();
}

/** Each table of a class as its body rows. */
function tableBodies(text: string, tableClass: string): string[][][] {
  const tables = [...text.matchAll(new RegExp(`<table class="${tableClass}">([\\s\\S]*?)</table>`, "g"))];
  return tables.map((t) => {
    const body = t[1]!.slice(t[1]!.indexOf("<tbody>"));
    return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) =>
      [...r[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => c[1]!.replace(/<[^>]+>/g, "").trim()),
    );
  });
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

  it("links each proposition's B score to B's verdicts of it, and that link opens them at their table", async () => {
    const { text } = await page(`/compare?a=${runs.dovA}&b=${runs.dovB}`);
    const href = `/runs/${runs.dovB}?p=adherence%2Fdov-warm-showman#p-adherence-dov-warm-showman`;
    expect(text).toContain(`<a href="${href}" title="B's verdicts of this proposition">`);
    const opened = await page(href.split("#")[0]!);
    expect(opened.status).toBe(200);
    expect(opened.text).toContain('id="p-adherence-dov-warm-showman"');
    expect(opened.text).not.toContain('id="p-adherence-persona-style"');
  });

  it("lists the verdicts that changed by proposition, the largest fall first, with the reasonings diffed and the message", async () => {
    const { text } = await page(`/compare?a=${runs.dovA}&b=${runs.dovB}`);
    const groups = tableBodies(text, "changed-verdicts");
    const changed = groups.flat();
    // Every one of Dov's 90 verdicts moved by 3, except those already at the end of the scale.
    expect(changed.length).toBeGreaterThan(60);
    expect(text).toMatch(
      /<section class="changed-group" id="changed-adherence-dov-warm-showman"><h3>adherence \/ <code>dov-warm-showman<\/code>/,
    );
    const [target, trial, a, b, delta, reasoning] = changed[0]!;
    expect(target).toContain("Dov Marchetti m36 · #on-air");
    expect(target).toContain("June! Love that for us"); // m36's text
    expect(trial).toBe("1");
    expect(a).toBe("6.0 ok");
    expect(b).toBe("0.0 ok");
    expect(delta).toBe("−6.0");
    // The diff holds both reasonings: A's words struck through, B's added; each reads whole without the other's.
    expect(reasoning).toContain("catchphrase");
    const cell = text.match(/<td class="reasoning-diff">([\s\S]*?)<\/td>/)![1]!;
    const side = (drop: "ins" | "del") =>
      cell
        .replace(new RegExp(`<${drop}>[^<]*</${drop}>`, "g"), "")
        .replace(/<[^>]+>/g, "")
        .replace(/\s+/g, " ")
        .trim();
    expect(side("del")).toBe(LONE_LOW);
    expect(side("ins")).toContain("catchphrase");
    expect(side("ins")).not.toContain("LONE LOW");
    for (const group of groups) {
      const deltas = group.map((c) => signed(c[4]!));
      expect(deltas).toEqual([...deltas].sort((x, y) => x - y));
    }
  });

  it("counts each proposition's verdicts regressed, improved and the same, and they add up to the matched ones", async () => {
    const { text } = await page(`/compare?a=${runs.dovA}&b=${runs.dovB}`);
    const counts = rows(text, "change-counts");
    expect(counts).toHaveLength(6);
    const matched = Number(text.match(/another score or status: \d+ of (\d+) matched/)![1]);
    const sum = (i: number) => counts.reduce((n, r) => n + Number(r[i]), 0);
    expect(sum(1) + sum(2) + sum(3)).toBe(matched);
    expect(sum(1) + sum(2)).toBe(rows(text, "changed-verdicts").length);
    // Every matched verdict of Dov's fell (the inverted claims' raw scores rose, so their scores fell too).
    expect(counts.map((r) => r.slice(1))).toEqual(counts.map(() => ["15", "0", "0"]));
    // From B back to A, each of them rose.
    const back = rows((await page(`/compare?a=${runs.dovB}&b=${runs.dovA}`)).text, "change-counts");
    expect(back.map((r) => r.slice(1))).toEqual(back.map(() => ["0", "15", "0"]));
  });

  it("filters the changed verdicts to those that regressed or those that improved", async () => {
    const forth = `/compare?a=${runs.dovA}&b=${runs.dovB}`;
    const back = `/compare?a=${runs.dovB}&b=${runs.dovA}`;
    const all = rows((await page(forth)).text, "changed-verdicts");
    const regressed = await page(`${forth}&changed=regressed`);
    const down = rows(regressed.text, "changed-verdicts");
    expect(down).toHaveLength(all.length);
    expect(down.every((r) => signed(r[4]!) < 0)).toBe(true);
    expect(regressed.text).toContain('<strong aria-current="true">regressed only (90)</strong>');
    const improved = await page(`${forth}&changed=improved`);
    expect(rows(improved.text, "changed-verdicts")).toHaveLength(0);
    expect(improved.text).toContain("No verdict improved.");
    const up = rows((await page(`${back}&changed=improved`)).text, "changed-verdicts");
    expect(up).toHaveLength(all.length);
    expect(up.every((r) => signed(r[4]!) > 0)).toBe(true);
    expect(rows((await page(`${back}&changed=regressed`)).text, "changed-verdicts")).toHaveLength(0);
    expect((await page(`${forth}&changed=worse`)).status).toBe(400);
  });

  it("shows a verdict whose status changed as regressed, and none that stayed the same", async () => {
    const { text } = await page(`/compare?a=${runs.inesA}&b=${runs.inesB}`);
    const changed = rows(text, "changed-verdicts");
    // Inés's second run differs only where the judge failed (m11, persona-knowledge).
    expect(changed).toHaveLength(1);
    expect(text).toContain('id="changed-adherence-persona-knowledge"');
    expect(changed[0]![3]).toBe("— errored");
    expect(changed[0]![5]).toContain("MissingVerdictError");
    const counts = rows(text, "change-counts").find((r) => r[0] === "adherence / persona-knowledge")!;
    expect(counts[1]).toBe("1");
    expect(counts[2]).toBe("0");
  });

  it("takes runs by the first 8 characters of their ids, as the pages show them", async () => {
    const full = await page(`/compare?a=${runs.dovA}&b=${runs.dovB}`);
    const short = await page(`/compare?a=${runs.dovA.slice(0, 8)}&b=${runs.dovB.slice(0, 8).toUpperCase()}`);
    expect(short.status).toBe(200);
    expect(short.text).toBe(full.text);
    const seven = await page(`/compare?a=${runs.dovA.slice(0, 7)}&b=${runs.dovB}`);
    expect(seven.status).toBe(400);
    expect(seven.text).toContain("first 8 or more characters");
    const run = await page(`/runs/${runs.dovB.slice(0, 8)}`);
    expect(run.status).toBe(200);
    expect(run.text).toContain(`<h1>Run ${runs.dovB.slice(0, 8)}`);
  });

  it("offers a run picker where no two runs are given: every run, the baseline labelled, narrowed by agent", async () => {
    const { status, text } = await page("/compare");
    expect(status).toBe(200);
    expect(text).toContain('<form class="run-picker" method="get" action="/compare">');
    const options = (name: string, markup: string) =>
      [
        ...markup
          .match(new RegExp(`<select name="${name}">([\\s\\S]*?)</select>`))![1]!
          .matchAll(/<option[^>]*>([^<]*)</g),
      ].map((m) => m[1]!);
    expect(options("a", text)).toHaveLength(4);
    expect(options("b", text).find((o) => o.startsWith(runs.dovA.slice(0, 8)))).toMatch(
      / · dov · .* · baseline$/,
    );
    const ines = await page("/compare?agent=ines");
    expect(options("a", ines.text).every((o) => o.includes(" · ines · "))).toBe(true);
    expect(options("a", ines.text)).toHaveLength(2);
    // With A given, it is chosen; B defaults to the newest run.
    const withA = await page(`/compare?a=${runs.inesA.slice(0, 8)}`);
    expect(withA.status).toBe(200);
    expect(withA.text).toContain(`<option value="${runs.inesA}" selected>`);
  });

  it("warns when the runs are not comparable: different agents, propositions or persona", async () => {
    const { status, text } = await page(`/compare?a=${runs.inesA}&b=${runs.dovB}`);
    expect(status).toBe(200);
    expect(text).toContain("Not comparable as they stand");
    expect(text).toContain("they are runs of different agents (ines and dov)");
    expect(text).toContain("the persona differs");
  });

  it("answers a malformed id with a 400 page naming the parameter, an unknown one with a 404", async () => {
    const badA = await page(`/compare?a=not-a-run&b=${runs.dovB}`);
    expect(badA.status).toBe(400);
    expect(badA.text).toContain("The <code>a</code> parameter: expected a run id");
    const unknown = await page(`/compare?a=${runs.dovA}&b=00000000-0000-4000-8000-000000000000`);
    expect(unknown.status).toBe(404);
    const unknownPrefix = await page(`/compare?a=${runs.dovA}&b=00000000`);
    expect(unknownPrefix.status).toBe(404);
  });
});
