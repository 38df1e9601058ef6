// The run page as a drill-down to the evidence, over HTTP (`app.request()`): verdicts grouped by proposition
// with the lowest first and its claim, the judged message in full in <details>, raw → final score explained,
// repeated reasoning written once, the judge's window, "failures only", sortable columns, and on /runs the
// failures view (failed, errored, regressed) and sorting within the page.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerApp } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { buildDrilldownStore, FIXTURES, LONE_LOW, M02 } from "./drilldown-store.ts";

const dir = useTempDir("dramaturg-drilldown-");
let store: Store;
let app: ReturnType<typeof createServerApp>;
/** Dov's and Inés's runs of the first evaluation (the baseline) and of the second (Dov regresses). */
const runs: Record<"dovA" | "inesA" | "dovB" | "inesB" | "bare", string> = {
  dovA: "",
  inesA: "",
  dovB: "",
  inesB: "",
  bare: "",
};

beforeAll(async () => {
  store = await openStore("memory://");
  Object.assign(runs, await buildDrilldownStore(store, dir()));
  // A run written through the store API alone: no input or result document kept with its evaluation.
  await store.agents.upsert([{ id: "zed", name: "Zed", persona: {} }]);
  const evaluation = await store.evaluations.create({ source: "api", agents: ["zed"] });
  const bare = await store.runs.create({
    agent_id: "zed",
    evaluation_id: evaluation.id,
    dimensions: ["adherence"],
    sample_size: 1,
  });
  await store.scores.write([
    {
      evaluation_id: evaluation.id,
      evaluation_run_id: bare.id,
      dimension: "adherence",
      proposition_id: "zed-claim",
      agent_id: "zed",
      message_id: "z1",
      trial: 1,
      status: "ok",
      raw_score: 5,
      score: 5,
      reasoning: "Plain.",
    },
  ]);
  runs.bare = bare.id;
  app = createServerApp({ store });
}, 60_000);
afterAll(async () => {
  await store.close();
});

const page = async (path: string) => {
  const response = await app.request(path);
  return { status: response.status, text: await response.text() };
};

/** Each proposition section of a page: its id, its score and its rows (as HTML). */
function groups(text: string) {
  return [...text.matchAll(/<section class="proposition" id="p-([^"]+)">([\s\S]*?)<\/section>/g)].map(
    (m) => ({
      id: m[1]!,
      html: m[2]!,
      score: Number(m[2]!.match(/Score <strong>([\d.]+)<\/strong>/)?.[1]),
      rows: [...m[2]!.matchAll(/<tr id="v-[^"]*" class="([^"]*)">([\s\S]*?)<\/tr>/g)].map((r) => ({
        status: r[1]!,
        html: r[2]!,
      })),
    }),
  );
}

/** A verdict row's final score (the sixth cell) as a number, NaN for "—". */
const finalScore = (row: string) => Number(row.match(/<td class="num v-score"[^>]*>([^<]*)<\/td>/)?.[1]);

describe("a run's verdicts, grouped by proposition", () => {
  it("lists the propositions lowest score first, each headed by its id and claim", async () => {
    const { status, text } = await page(`/runs/${runs.dovB}`);
    expect(status).toBe(200);
    const found = groups(text);
    expect(found.length).toBe(6);
    const scores = found.map((g) => g.score);
    expect(scores).toEqual([...scores].sort((a, b) => a - b));
    expect(found[0]!.id).toBe("adherence-persona-style");
    expect(found[0]!.html).toContain("<code>persona-style</code>");
    expect(found[0]!.html).toContain(
      "Dov Marchetti&#39;s message is written in the manner the persona specification describes",
    );
    const showman = found.find((g) => g.id === "adherence-dov-warm-showman")!.html;
    expect(showman).toContain(
      "Dov Marchetti sounds like an exuberant, warm radio host who treats listeners as friends and turns moments into segments",
    );
  });

  it("puts the lowest verdict first in its group, with the speaker, id and channel of its message", async () => {
    const { text } = await page(`/runs/${runs.dovB}`);
    const showman = groups(text).find((g) => g.id === "adherence-dov-warm-showman")!;
    const first = showman.rows[0]!.html;
    expect(first).toContain("<strong>Dov Marchetti</strong>");
    expect(first).toContain("<code>m36</code> · #on-air");
    expect(first).toContain(LONE_LOW);
    expect(finalScore(first)).toBe(0);
    const scores = showman.rows.map((r) => finalScore(r.html));
    expect(scores).toEqual([...scores].sort((a, b) => a - b));
  });

  it("shows a long message whole inside <details>, its first 160 characters as the summary", async () => {
    const { text } = await page(`/runs/${runs.dovB}`);
    expect(M02.length).toBeGreaterThan(160);
    const escaped = M02.replaceAll("'", "&#39;");
    expect(text).toContain(
      `<details class="message"><summary>${escaped.slice(0, 159)}…</summary><p class="message-text">${escaped}</p></details>`,
    );
  });

  it("spells out what turned raw into score: inverted, then hard", async () => {
    const dov = (await page(`/runs/${runs.dovA}`)).text;
    expect(dov).toContain("inverted: 9 − 1 = 8"); // dov-flat-delivery, judged 1
    const ines = (await page(`/runs/${runs.inesA}`)).text;
    expect(ines).toContain("inverted: 9 − 1 = 8; hard: 8 × 0.8 = 6.4"); // breaks-character on a hard set
    expect(ines).toContain("hard: 8 × 0.8 = 6.4"); // persona-traits, judged 8
    expect(ines).toContain("inverted: 9 − 0 = 9; hard: 9 is not penalised");
    expect(ines).toContain("inverted: yes · hard: yes");
    expect(dov).toContain("<strong>Raw</strong> is the judge's 0–9 answer");
  });

  it("writes a reasoning repeated word for word once, and refers to it after that", async () => {
    const { text } = await page(`/runs/${runs.dovA}`);
    const traits = groups(text).find((g) => g.id === "adherence-persona-traits")!;
    const reasoning = FIXTURES.verdicts.find(
      (v: { agent_id?: string; proposition_id: string; message_id?: string }) =>
        v.agent_id === "dov" && v.proposition_id === "persona-traits" && !v.message_id,
    ).reasoning as string;
    const escaped = reasoning.replaceAll("'", "&#39;");
    expect(traits.html.split(escaped).length - 1).toBe(1);
    expect(traits.html).toContain("(the same words for 13 other verdicts below)");
    expect(traits.html.match(/Same reasoning as m\d+ above\./g)).toHaveLength(13);
  });

  it("links each verdict to the trajectory window the judge read, which loads on demand", async () => {
    const { text } = await page(`/runs/${runs.dovA}`);
    expect(text).not.toContain('<section id="windows">');
    const href = text.match(
      /<details class="judge-window" data-window="([^"]*message=m36[^"]*)"><summary>What the judge read<\/summary><div class="window-body"><p><a href="([^"]*)">/,
    );
    expect(href?.[1]).toContain("fragment=1");
    // m36's window holds what came before it in the transcript, e.g. Dov's own m34.
    const window = await page(href![2]!.replaceAll("&amp;", "&"));
    expect(window.status).toBe(200);
    expect(window.text).toContain("Dov Marchetti&#39;s trajectory before the message under evaluation");
    expect(window.text).toContain("Dov Marchetti acts:");
  });

  it("says when a proposition's claim and the messages are not kept with the run", async () => {
    const { status, text } = await page(`/runs/${runs.bare}`);
    expect(status).toBe(200);
    expect(text).toContain("<code>zed-claim</code>");
    expect(text).toContain("its claim is not kept with this run");
    expect(text).toContain("message z1 is not kept with this run");
  });
});

describe("failures only and sorting on a run's page", () => {
  it("keeps only verdicts below the pass mark and errored ones, and says what that means", async () => {
    const all = groups((await page(`/runs/${runs.inesB}`)).text).flatMap((g) => g.rows);
    const { text } = await page(`/runs/${runs.inesB}?failures=1`);
    const failing = groups(text).flatMap((g) => g.rows);
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.length).toBeLessThan(all.length);
    for (const row of failing)
      expect(row.status === "errored failing" || finalScore(row.html) < 7).toBe(true);
    expect(failing.filter((r) => r.status === "errored failing")).toHaveLength(1);
    expect(text).toContain("MissingVerdictError");
    expect(text).toContain("verdicts scored below 7 and errored ones");
    expect(text).toMatch(/<a href="[^"]*failures=1[^"]*" aria-current="true">Failures only<\/a>/);
  });

  it("sorts every verdict table by a column asked for, marking it with aria-sort", async () => {
    const { text } = await page(`/runs/${runs.dovB}?sort=target&order=desc`);
    expect(text).toContain('<th aria-sort="descending"><a href="/runs/');
    const targets = groups(text)[0]!.rows.map((r) => r.html.match(/<code>(m\d+)<\/code>/)![1]!);
    expect(targets).toEqual([...targets].sort((a, b) => b.localeCompare(a, "en", { numeric: true })));
    // The default: by score, ascending, marked so.
    const byDefault = (await page(`/runs/${runs.dovB}`)).text;
    expect(byDefault).toMatch(
      /<th class="num" aria-sort="ascending"><a href="[^"]*sort=score&amp;order=desc#p-adherence-[^"]+">Score ▲<\/a><\/th>/,
    );
  });

  it("answers a bad sort or order with a 400 page naming the parameter", async () => {
    const sort = await page(`/runs/${runs.dovB}?sort=colour`);
    expect(sort.status).toBe(400);
    expect(sort.text).toContain("The <code>sort</code> parameter");
    const failures = await page(`/runs/${runs.dovB}?failures=yes`);
    expect(failures.status).toBe(400);
    expect(failures.text).toContain("The <code>failures</code> parameter");
  });
});

describe("the runs list", () => {
  it("failures only lists runs with errored verdicts or a regression against the baseline, and why", async () => {
    const { text } = await page("/runs?failures=1");
    expect(text).toContain(`/runs/${runs.dovB}"`);
    expect(text).toContain("regression: adherence");
    expect(text).toContain(`/runs/${runs.inesB}"`);
    expect(text).toContain("errored verdicts");
    for (const clean of [runs.dovA, runs.inesA, runs.bare]) expect(text).not.toContain(`/runs/${clean}"`);
    const all = (await page("/runs")).text;
    for (const id of Object.values(runs)) expect(all).toContain(`/runs/${id}"`);
  });

  it("sorts the page by a column, with numeric headers right-aligned and the current one marked", async () => {
    const { text } = await page("/runs?sort=overall&order=asc");
    expect(text).toContain(
      '<th class="num" aria-sort="ascending"><a href="/runs?sort=overall&amp;order=desc">Overall ▲</a></th>',
    );
    const overall = [
      ...text.matchAll(
        /<td><a href="\/agents\/[^"]+">[^<]+<\/a><\/td>\n<td>[\s\S]*?<\/td>\n<td class="num">([^<]+)<\/td>/g,
      ),
    ].map((m) => (m[1] === "—" ? Number.POSITIVE_INFINITY : Number(m[1])));
    expect(overall.length).toBe(5);
    expect(overall).toEqual([...overall].sort((a, b) => a - b));
    expect(text).toContain("Sorted within this page");
  });

  it("shows each run's largest fall against its baseline, marks a regression, and sorts the largest fall first", async () => {
    const { text } = await page("/runs?sort=drop&order=asc");
    const rowOf = (id: string) => text.slice(text.indexOf(`<a href="/runs/${id}">`)).split("</tr>")[0]!;
    // Dov's adherence fell three points against his baseline run: a regression, ringed in the list.
    expect(rowOf(runs.dovB)).toMatch(
      /<td class="num regressed">adherence −\d\.\d <span class="tag regression">regression<\/span><\/td>/,
    );
    // A baseline run is its own baseline: Δ ±0.0, no marker; Zed has no baseline at all.
    expect(rowOf(runs.dovA)).toContain('<td class="num">adherence ±0.0</td>');
    expect(rowOf(runs.bare)).toContain('title="no baseline for this agent">—</td>');
    const order = [...text.matchAll(/<a href="\/runs\/([^"]+)">/g)].map((m) => m[1]);
    expect(order[0]).toBe(runs.dovB);
    expect(order.at(-1)).toBe(runs.bare);
  });

  it("links a run to comparisons with the agent's previous run and with its baseline run", async () => {
    const { text } = await page(`/runs/${runs.dovB}`);
    expect(text).toContain(
      `href="/compare?a=${runs.dovA}&amp;b=${runs.dovB}">Compare with the previous run of dov</a>`,
    );
    expect(text).toContain(
      `href="/compare?a=${runs.dovA}&amp;b=${runs.dovB}">Compare with the baseline run</a>`,
    );
    // The baseline run itself has nothing earlier, and is said to be the baseline, not to lack one.
    const baseline = (await page(`/runs/${runs.dovA}`)).text;
    expect(baseline).toContain(
      "This run is dov&#39;s baseline, what later runs are compared with; dov has no earlier run.",
    );
    expect(baseline).not.toContain("no baseline run");
  });
});

describe("the agents list", () => {
  it("shows each agent's largest fall, marks a regression, and sorts the largest fall first", async () => {
    const { status, text } = await page("/agents?sort=drop&order=asc");
    expect(status).toBe(200);
    const rowOf = (id: string) => text.slice(text.indexOf(`<a href="/agents/${id}">`)).split("</tr>")[0]!;
    expect(rowOf("dov")).toMatch(
      /<td class="num regressed" title="against the baseline">adherence −\d\.\d <span class="tag regression">regression<\/span><\/td>/,
    );
    // Zed has one run and no baseline: nothing to measure against.
    expect(rowOf("zed")).toContain('title="no baseline and no earlier run">—</td>');
    const order = [...text.matchAll(/<td><a href="\/agents\/([^"]+)">/g)].map((m) => m[1]);
    expect(order[0]).toBe("dov");
    expect(order.at(-1)).toBe("zed");
    expect(text).toContain('aria-sort="ascending"><a href="/agents?sort=drop&amp;order=desc">Δ ▲</a>');
  });
});
