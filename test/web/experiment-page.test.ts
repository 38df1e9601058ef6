// The experiment page over HTTP (`app.request()`): the demo experiment's Table 1 with the figures
// `experiment report` computes, each metric's two distributions, and the pairs linking both arms' runs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { experimentReport, loadExperimentResult } from "../../src/experiments/index.ts";
import { createServerApp } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { experimentArmReader } from "../../src/web/experiment-runs.ts";
import { buildExperimentStore } from "./experiment-page-store.ts";

let store: Store;
let app: ReturnType<typeof createServerApp>;
let experimentId: string;

beforeAll(async () => {
  store = await openStore("memory://");
  ({ experimentId } = await buildExperimentStore(store));
  app = createServerApp({ store });
}, 120_000);
afterAll(async () => {
  await store.close();
});

const page = async (path: string) => {
  const response = await app.request(path);
  return { status: response.status, text: await response.text() };
};

/** A table's body rows as lists of cell texts (markup stripped). */
function rows(text: string, tableClass: string): string[][] {
  const table = text.match(new RegExp(`<table class="${tableClass}"[^>]*>([\\s\\S]*?)</table>`))?.[1] ?? "";
  const body = table.slice(table.indexOf("<tbody>"));
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((r) =>
    [...r[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) =>
      c[1]!
        .replace(/<[^>]+>/g, "")
        .replace(/\s+/g, " ")
        .trim(),
    ),
  );
}

describe("the experiment page", () => {
  it("shows Table 1 with the means (n), Δ and p that experiment report computes", async () => {
    const { status, text } = await page(`/experiments/${experimentId}`);
    expect(status).toBe(200);
    const { document } = await loadExperimentResult({ store, id: experimentId });
    const { report } = experimentReport(document);
    const table = rows(text, "table1");
    expect(table.map((r) => r[0])).toEqual(report.comparisons.map((c) => c.metric));
    const adherence = table.find((r) => r[0] === "adherence")!;
    const c = report.comparisons.find((x) => x.metric === "adherence")!;
    expect(adherence[1]).toMatch(new RegExp(`^${c.control.mean!.toFixed(2)} \\(${c.control.n}\\) \\[`));
    expect(adherence[2]!.startsWith(`${c.treatment.mean!.toFixed(2)} (${c.treatment.n})`)).toBe(true);
    expect(adherence[3]).toBe("+3.73");
    expect(adherence[4]).toBe("2.23e-07 *");
  });

  it("gives each arm's 95% CI of its mean, around the mean", async () => {
    const { text } = await page(`/experiments/${experimentId}`);
    const adherence = rows(text, "table1").find((r) => r[0] === "adherence")!;
    const [mean, , low, high] = adherence[1]!.match(/[\d.]+/g)!.map(Number);
    expect(low).toBeLessThan(mean!);
    expect(high).toBeGreaterThan(mean!);
  });

  it("draws each metric's two distributions, one dot per value", async () => {
    const { text } = await page(`/experiments/${experimentId}`);
    const figures = [...text.matchAll(/<figure class="distribution">([\s\S]*?)<\/figure>/g)].map(
      (m) => m[1]!,
    );
    expect(figures).toHaveLength(6);
    const adherence = figures.find((f) => f.includes("<figcaption>adherence</figcaption>"))!;
    const arm = (a: number) => adherence.match(new RegExp(`<g class="arm-${a}">([\\s\\S]*?)</g>`))![1]!;
    expect(arm(0).match(/<circle/g)).toHaveLength(12);
    expect(arm(1).match(/<circle/g)).toHaveLength(12);
    expect(arm(0)).toContain('class="ci"');
  });

  it("sets each environment's control and treatment side by side, linking both arms' runs", async () => {
    const { text } = await page(`/experiments/${experimentId}`);
    const pairs = [...text.matchAll(/<table class="pair"/g)];
    expect(pairs).toHaveLength(4);
    const first = rows(text, "pair");
    // Three agents, then the environment's own line; each agent has a run in both arms.
    expect(first).toHaveLength(4);
    for (const [, control, treatment] of first.slice(0, 3)) {
      expect(control).toMatch(/^run [0-9a-f]{8}/);
      expect(treatment).toMatch(/^run [0-9a-f]{8}/);
    }
    const ids = [...text.matchAll(/href="\/runs\/([0-9a-f-]{36})"/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(24);
    const runs = await Promise.all(ids.map((id) => store.runs.get(id!)));
    expect(runs.every((r) => r?.status === "completed")).toBe(true);
  });

  it("folds each environment's two transcripts side by side, the control's beside the treatment's", async () => {
    const { text } = await page(`/experiments/${experimentId}`);
    const folded = [...text.matchAll(/<details class="transcripts">([\s\S]*?)<\/details>/g)].map(
      (m) => m[1]!,
    );
    expect(folded).toHaveLength(4);
    const arms = [...folded[0]!.matchAll(/<section><h3>(\w+)<\/h3><ol class="transcript">([\s\S]*?)<\/ol>/g)];
    expect(arms.map((a) => a[1])).toEqual(["control", "treatment"]);
    // The scripted agents' drafts break character; the treatment's gate has them redrafted, the control's not.
    expect(arms[0]![2]).toContain("As an AI language model");
    expect(arms[1]![2]).not.toContain("As an AI language model");
  });

  it("is in the navigation as Experiments, marked on its pages", async () => {
    const { text } = await page(`/experiments/${experimentId}`);
    expect(text).toContain('<a href="/experiments" aria-current="page">Experiments</a>');
    expect((await page("/agents")).text).toContain('<a href="/experiments">Experiments</a>');
  });

  it("is a 404 for an id that is not an experiment's", async () => {
    expect((await page("/experiments/00000000-0000-4000-8000-000000000000")).status).toBe(404);
  });
});

describe("the experiments list", () => {
  it("lists the experiment with its scenario, arms' size, significant metrics and first metric's Δ and p", async () => {
    const { status, text } = await page("/experiments");
    expect(status).toBe(200);
    const [row, ...others] = rows(text, "experiments");
    expect(others).toEqual([]);
    expect(row!.slice(2, 8)).toEqual([
      "completed",
      "tiny-brainstorm A tiny brainstorm",
      "1",
      "4",
      "1 of 6",
      "adherence Δ +3.73 · p 2.23e-07 *",
    ]);
    expect(text).toContain(`<a href="/experiments/${experimentId}">`);
  });
});

describe("experiments' agents in the agents list", () => {
  it("leaves them out by default and says how many, keeping the store's own agents", async () => {
    const { text } = await page("/agents");
    const agents = rows(text, "agents").map((r) => r[0]);
    expect(agents).toEqual(["Own Agent own-agent"]);
    expect(text).toContain("6 agents of experiments left out");
    expect(text).toContain('href="/agents?experiments=1"');
  });

  it("shows them with ?experiments=1, one row per arm, named with their experiment and arm", async () => {
    const { text } = await page("/agents?experiments=1");
    const agents = rows(text, "agents").map((r) => r[0]!);
    expect(agents).toHaveLength(1 + 6 * 2);
    const short = experimentId.slice(0, 8);
    const ana = agents.filter((a) => a.startsWith("Ana A "));
    expect(ana.sort()).toEqual([
      `Ana A (experiment tiny-brainstorm ${short}, control) ana-a`,
      `Ana A (experiment tiny-brainstorm ${short}, treatment) ana-a`,
    ]);
    expect(text).toContain(`href="/experiments/${experimentId}"`);
  });
});

describe("an experiment's run page", () => {
  /** Ana's runs, oldest first, each with its arm. */
  async function anaRuns() {
    const armOf = experimentArmReader(store);
    const runs = (await store.runs.list({ agent: "ana-a", limit: 50 })).reverse();
    return Promise.all(runs.map(async (run) => ({ run, place: (await armOf(run))! })));
  }
  const compareTarget = (text: string, label: RegExp) => {
    const link = [
      ...text.matchAll(/<a href="\/compare\?a=([0-9a-f-]{36})&amp;b=[0-9a-f-]{36}">([^<]*)<\/a>/g),
    ].find((m) => label.test(m[2]!));
    return link?.[1];
  };

  it("names the experiment and arm it ran in, linking the experiment's environment", async () => {
    const { run, place } = (await anaRuns())[0]!;
    const { text } = await page(`/runs/${run.id}`);
    expect(text).toContain(
      `href="/experiments/${experimentId}#environment-${place.environment + 1}">experiment tiny-brainstorm ${experimentId.slice(0, 8)}, ${place.arm}</a>`,
    );
  });

  it("compares with the previous run in the same arm only, and says so when there is none", async () => {
    const runs = await anaRuns();
    expect(new Set(runs.map((r) => r.place.arm))).toEqual(new Set(["control", "treatment"]));
    for (const [i, { run, place }] of runs.entries()) {
      const { text } = await page(`/runs/${run.id}`);
      const previous = compareTarget(text, /previous run/);
      const earlierInArm = runs.slice(0, i).filter((r) => r.place.arm === place.arm);
      if (earlierInArm.length === 0) {
        expect(previous).toBeUndefined();
        expect(text).toContain(`It has no earlier run in the ${place.arm} arm`);
      } else expect(previous).toBe(earlierInArm.at(-1)!.run.id);
    }
  });

  it("offers the other arm's run of the same environment as that, not as the previous run", async () => {
    const runs = await anaRuns();
    const treatment = runs.find((r) => r.place.arm === "treatment")!;
    const { text } = await page(`/runs/${treatment.run.id}`);
    const paired = compareTarget(text, /control run of the same environment/);
    const control = runs.find(
      (r) => r.place.arm === "control" && r.place.environment === treatment.place.environment,
    );
    expect(paired).toBe(control!.run.id);
  });
});

describe("untrusted text on the experiment page", () => {
  it("escapes an agent's name in the pairs and the transcripts", async () => {
    const ana = (await store.agents.get("ana-a"))!;
    await store.agents.upsert({ id: ana.id, name: '<img src=x onerror="alert(1)">', persona: ana.persona });
    try {
      const { text } = await page(`/experiments/${experimentId}`);
      expect(text).not.toContain("<img src=x");
      expect(text).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    } finally {
      await store.agents.upsert({ id: ana.id, name: ana.name, persona: ana.persona });
    }
  });
});
