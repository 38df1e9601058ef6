// `dramaturg calibrate --run`: the demo ensemble evaluated with the fixture judge into a store of the test's
// own, then calibrated with the hand-written example labels; the figures are checked against agreement()
// over items built here straight from the stored verdict rows and the raw label files.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type AgreementItem,
  agreement,
  type CalibrationResult,
  readLabels,
} from "../../src/calibration/index.ts";
import { openStore } from "../../src/store/index.ts";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { cli, DEMO, ROOT } from "./run-cli.ts";
import { expectSelfContained } from "./self-contained-report.ts";

const folder = useTempDir("dramaturg-calibrate-");
const LABELS = [
  `${ROOT}examples/ensemble/labels/rater-a.yaml`,
  `${ROOT}examples/ensemble/labels/rater-b.csv`,
];
let db: string;
let runId: string;

beforeAll(async () => {
  db = join(folder(), "store");
  const evaluated = await cli(["eval", ...DEMO, "--db", db, "--format", "json"]);
  expect(evaluated.code).toBe(0);
  // A run's id, not the evaluation's: --run takes either.
  runId = JSON.parse(evaluated.stdout).runs[0].run_id;
}, 60_000);

const calibrate = (...extra: string[]) =>
  cli(["calibrate", "--labels", ...LABELS, "--run", runId.slice(0, 8), "--db", db, ...extra]);

/**
 * The items by (dimension, proposition), built without labelItems: each label matched to the stored verdict
 * of its message, agent or channel, a verdict label mapped to 9 or 0 through the verdict's own `inverted`.
 */
async function itemsFromVerdicts(evaluationId: string): Promise<Map<string, AgreementItem[]>> {
  const store = await openStore(db);
  const rows = await store.scores.forEvaluation(evaluationId).finally(() => store.close());
  const byItem = new Map<string, { dp: string; order: string; judge: number | null; raters: number[] }>();
  for (const label of readLabels(LABELS).labels) {
    const row = rows.find(
      (r) =>
        r.dimension === label.dimension &&
        r.proposition_id === label.proposition_id &&
        (label.message_id !== undefined
          ? r.message_id === label.message_id
          : label.agent_id !== undefined
            ? r.agent_id === label.agent_id && r.message_id === null
            : r.channel === label.channel),
    );
    expect(row, JSON.stringify(label)).toBeDefined();
    const raw = label.score ?? ((label.verdict === "pass") !== row!.inverted ? 9 : 0);
    const key = row!.verdict_key;
    const item = byItem.get(key) ?? {
      dp: `${row!.dimension}/${row!.proposition_id}`,
      // The bootstrap draws items by index: the same intervals need the documented order of items.
      order: [
        row!.dimension,
        row!.proposition_id,
        row!.agent_id ?? "",
        row!.message_id ?? row!.channel ?? "",
      ].join("\u0000"),
      judge: row!.raw_score,
      raters: [],
    };
    item.raters.push(raw);
    byItem.set(key, item);
  }
  const out = new Map<string, AgreementItem[]>();
  const sorted = [...byItem.values()].sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
  for (const { dp, judge, raters } of sorted) out.set(dp, [...(out.get(dp) ?? []), { judge, raters }]);
  return out;
}

describe("dramaturg calibrate --run", () => {
  it("gives every figure as agreement() gives it on the items built from the verdicts", async () => {
    const r = await calibrate("--format", "json", "--resamples", "200", "--seed", "7");
    expect(r.code).toBe(1);
    const result = JSON.parse(r.stdout) as CalibrationResult;
    expect(Object.keys(result)).toEqual([
      "format",
      "evaluation_id",
      "calibrated_evaluation",
      "judged",
      "judge",
      "propositions_hash",
      "warnings",
      "token_usage",
      "labels",
      "minimum_kappa",
      "minimum",
      "judge_trials",
      "overall",
      "dimensions",
      "propositions",
      "raters",
      "not_judged",
      "not_judged_items",
    ]);
    expect(result.format).toBe("dramaturg.calibration/v1");
    expect(result.judge).toEqual({ provider: "fixtures", model: "hand-written" });
    expect(result.labels).toEqual(LABELS);
    expect(result.minimum_kappa).toBe(0.6);
    expect(result.not_judged).toBe(0);

    const byProposition = await itemsFromVerdicts(result.calibrated_evaluation!);
    const options = { resamples: 200, seed: 7 };
    const all = [...byProposition.values()].flat();
    const overall = agreement(all, options);
    for (const name of [
      "n",
      "pearson",
      "spearman",
      "kappa_quadratic",
      "alpha_interval",
      "mae",
      "bias",
      "exact",
    ])
      expect(result.overall[name as "n"], name).toBe(overall[name as "n"]);
    expect(result.overall.ci).toEqual(overall.ci);
    expect(result.raters).toEqual(overall.raters);

    expect(result.propositions.map((p) => `${p.dimension}/${p.proposition_id}`).sort()).toEqual(
      [...byProposition.keys()].sort(),
    );
    for (const p of result.propositions) {
      const expected = agreement(byProposition.get(`${p.dimension}/${p.proposition_id}`)!, options);
      const { dimension, proposition_id, rubric_hash, flagged, too_few, disagreements, ...figures } = p;
      expect(rubric_hash).toMatch(/^[0-9a-f]{16,}$/);
      expect(Object.keys(figures).sort()).toEqual(
        [
          "n",
          "n_judged",
          "pearson",
          "spearman",
          "kappa_quadratic",
          "alpha_interval",
          "alpha_ordinal",
          "mae",
          "bias",
          "exact",
          "within_1",
          "ci",
        ].sort(),
      );
      for (const [name, value] of Object.entries(figures))
        expect(value, `${proposition_id} ${name}`).toEqual(expected[name as keyof typeof expected]);
      const kappa = expected.kappa_quadratic;
      expect(flagged, proposition_id).toBe(expected.n_judged >= 2 && kappa !== null && kappa < 0.6);
      expect(too_few).toBe(expected.n_judged < 5);
      expect(disagreements !== undefined).toBe(flagged);
    }
    const dimensions = result.dimensions.map((d) => d.dimension);
    expect(dimensions).toEqual(["adherence", "consistency", "convergence", "fluency"]);
  }, 30_000);

  it("shows a flagged proposition's largest disagreements: message, raters' notes, judge's reasoning", async () => {
    const r = await calibrate("--resamples", "0");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /not calibrated well enough on \d+ proposition\(s\) \(κ < 0\.6\): .*priya-measured-facts/,
    );
    const table = r.stdout;
    // Flagged first, then the rest, then the overall line.
    const lines = table.split("\n");
    const firstOk = lines.findIndex((l) => /^[✓·]/.test(l));
    const lastFlagged = lines.findLastIndex(
      (l) => /^✗ \(few\)\s+\w+\s+\S+\s+\d/.test(l) || /^✗\s+\w+\s+\S+\s+\d/.test(l),
    );
    expect(lastFlagged).toBeGreaterThan(0);
    expect(lastFlagged).toBeLessThan(firstOk);
    expect(table).toMatch(/^\s+overall\s+\d+/m);
    expect(table).toMatch(/Raters' own agreement \(the ceiling\), over \d+ item\(s\)/);
    const section = table.slice(table.indexOf("✗ adherence/priya-measured-facts"));
    expect(section).toContain("m12 (Priya Ramaswamy-Holt): judge 8, people 5.0");
    expect(section).toContain("message: ugh. pasted from the council grant template");
    expect(section).toContain("rater-b: 4 — Concrete (one landline, three calls)");
    expect(section).toMatch(/judge: She reports 60% power/);
  }, 30_000);

  it("prints Markdown for a pull request", async () => {
    const r = await calibrate("--format", "markdown", "--resamples", "0");
    expect(r.stdout).toMatch(/^## Judge calibration: fixtures:hand-written/);
    expect(r.stdout).toContain("| ✗ (few) | adherence | priya-measured-facts |");
    expect(r.stdout).toContain("### adherence/priya-measured-facts");
  }, 30_000);

  it("gives the same bytes twice, its own stored id aside, and show prints the stored one again", async () => {
    // Each calibration is stored under an id of its own: the only difference between two.
    const ownId = (text: string) => {
      const id = (JSON.parse(text) as CalibrationResult).evaluation_id!;
      return text.replaceAll(id, "ID").replaceAll(id.slice(0, 8), "ID");
    };
    const a = await calibrate("--format", "json", "--resamples", "100");
    const b = await calibrate("--format", "json", "--resamples", "100");
    expect(ownId(a.stdout)).toBe(ownId(b.stdout));
    const shown = await cli([
      "show",
      (JSON.parse(a.stdout) as CalibrationResult).evaluation_id!,
      "--format",
      "json",
      "--db",
      db,
    ]);
    expect(shown.stdout).toBe(a.stdout);
    const c = await calibrate("--resamples", "100");
    const d = await calibrate("--resamples", "100");
    const idOf = (text: string) => /^Calibration ([0-9a-f]{8})/.exec(text)![1]!;
    expect(c.stdout.replace(idOf(c.stdout), "ID")).toBe(d.stdout.replace(idOf(d.stdout), "ID"));
    const shownTable = await cli(["show", idOf(c.stdout), "--db", db]);
    expect(shownTable.stdout).toBe(c.stdout);
  }, 30_000);

  it("--format html writes one self-contained page of the calibration, from a folder or memory://, and show writes it again", async () => {
    const out = join(folder(), "calibration.html");
    const r = await calibrate("--resamples", "0", "--format", "html", "--out", out);
    expect(r.code).toBe(1);
    const page = readFileSync(out, "utf8");
    expectSelfContained(page);
    expect(page).toContain("persona-style");
    const id = /Calibration ([0-9a-f]{8})/.exec(page)![1]!;
    const again = join(folder(), "again.html");
    await cli(["show", id, "--db", db, "--format", "html", "--out", again]);
    expect(readFileSync(again, "utf8")).toContain(`Calibration ${id}`);
    const memory = await cli([
      "calibrate",
      "--labels",
      ...LABELS,
      "--transcript",
      `${ROOT}examples/ensemble/transcript.json`,
      "--propositions",
      `${ROOT}examples/ensemble/propositions`,
      "--judge",
      `fixtures:${ROOT}examples/ensemble/judge-fixtures.json`,
      "--db",
      "memory://",
      "--resamples",
      "0",
      "--format",
      "html",
    ]);
    expect(memory.stdout).toMatch(/^<!doctype html>/i);
    expect(memory.stdout).toContain("persona-style");
  }, 60_000);

  it("writes --out, and a different seed gives other intervals but the same figures", async () => {
    const out = join(folder(), "calibration.json");
    const r = await calibrate("--format", "json", "--resamples", "50", "--out", out);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`wrote ${out}`);
    const written = JSON.parse(readFileSync(out, "utf8")) as CalibrationResult;
    const other = JSON.parse(
      (await calibrate("--format", "json", "--resamples", "50", "--seed", "9")).stdout,
    );
    expect(other.overall.kappa_quadratic).toBe(written.overall.kappa_quadratic);
    expect(other.overall.ci).not.toEqual(written.overall.ci);
  }, 30_000);

  it("computes precision and recall of fails at --minimum, else at the project's one shared minimum", async () => {
    const without = JSON.parse((await calibrate("--format", "json", "--resamples", "0")).stdout);
    expect(without.minimum).toBeNull();
    expect(without.overall.fails).toBeUndefined();
    const given = JSON.parse(
      (await calibrate("--format", "json", "--resamples", "0", "--minimum", "6")).stdout,
    );
    expect(given.minimum).toBe(6);
    expect(given.overall.fails).toMatchObject({ minimum: 6 });
    expect(given.dimensions[0].fails).toMatchObject({ minimum: 6 });

    const shared = join(folder(), "shared.yaml");
    writeFileSync(shared, "thresholds:\n  minimum:\n    adherence: 5\n    fluency: 5\n");
    const fromProject = await calibrate("--format", "json", "--resamples", "0", "--config", shared);
    expect(JSON.parse(fromProject.stdout).minimum).toBe(5);
    const differing = join(folder(), "differing.yaml");
    writeFileSync(differing, "thresholds:\n  minimum:\n    adherence: 5\n    fluency: 6\n");
    const none = await calibrate("--format", "json", "--resamples", "0", "--config", differing);
    expect(JSON.parse(none.stdout).minimum).toBeNull();
  }, 30_000);

  it("bad labels exit 2 naming the file and line, and write nothing", async () => {
    const bad = join(folder(), "bad.yaml");
    writeFileSync(
      bad,
      [
        "format: dramaturg.labels/v1",
        "labels:",
        "  - dimension: adherence",
        "    proposition_id: persona-style",
        "    message_id: m10",
        "    score: 3",
        "  - dimension: adherence",
        "    proposition_id: persona-stlye",
        "    message_id: m10",
        "    score: 3",
        "",
      ].join("\n"),
    );
    const out = join(folder(), "never.json");
    const r = await cli(["calibrate", "--labels", bad, "--run", runId, "--db", db, "--out", out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${bad}:7: unknown proposition id "persona-stlye" (did you mean "persona-style"?)`,
    );
    expect(r.stdout).toBe("");
    expect(existsSync(out)).toBe(false);

    writeFileSync(
      bad,
      "format: dramaturg.labels/v1\nlabels:\n  - dimension: adherence\n    proposition_id: persona-style\n    message_id: m10\n    score: 11\n",
    );
    const eleven = await cli(["calibrate", "--labels", bad, "--run", runId, "--db", db, "--out", out]);
    expect(eleven.code).toBe(2);
    expect(eleven.stderr).toMatch(new RegExp(`${bad}:6: score: expected a whole number from 0 to 9, got 11`));
    expect(existsSync(out)).toBe(false);
  }, 30_000);

  it("an unknown run exits 2", async () => {
    const r = await cli(["calibrate", "--labels", ...LABELS, "--run", "00000000", "--db", db]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no evaluation or run with id 00000000");
  }, 30_000);

  it("bad flags exit 2", async () => {
    for (const flags of [
      ["--min-kappa", "2"],
      ["--resamples", "-1"],
      ["--seed", "x"],
      ["--minimum", "11"],
      ["--minimum", "high"],
      ["--format", "xml"],
    ]) {
      const r = await calibrate(...flags);
      expect(r.code, flags.join(" ")).toBe(2);
      expect(r.stdout).toBe("");
    }
    expect((await cli(["calibrate", "--labels", ...LABELS, "--db", db])).code).toBe(2);
  }, 30_000);
});

describe("npm run demo:calibrate", () => {
  it("evaluates the ensemble offline and prints its calibration against the example labels", async () => {
    const { execFile } = await import("node:child_process");
    const { promisify } = await import("node:util");
    const demo = `${ROOT}scripts/demo-calibrate.mjs`;
    const { stdout } = await promisify(execFile)(process.execPath, [demo], { timeout: 60_000 });
    expect(stdout).toMatch(/^\$ dramaturg eval /m);
    expect(stdout).toMatch(/Calibration [0-9a-f]{8} of fixtures:hand-written on evaluation [0-9a-f]{8}/);
    expect(stdout).toMatch(/^ +overall +\d+ /m);
    expect(stdout).toMatch(/Raters' own agreement \(the ceiling\)/);
    expect(stdout).toContain("(exit 1: propositions flagged, as these example labels are meant to show)");
  }, 60_000);
});

describe("dramaturg calibrate --judge", () => {
  let server: FakeOpenAIServer;
  beforeAll(async () => {
    server = await startFakeOpenAIServer();
    return () => server.close();
  });

  it("judges only the labelled items through the real provider client, stores the calibration, and a rerun is cached", async () => {
    const before = server.stats.calls;
    const judge = ["--judge", "openai-compatible:fake-a", "--judge-base-url", server.url];
    const first = await calibrate(...judge, "--format", "json", "--resamples", "0");
    expect(first.stderr).not.toMatch(/Error/);
    const result = JSON.parse(first.stdout) as CalibrationResult;
    const labelled = new Set(
      readLabels(LABELS).labels.map((l) =>
        JSON.stringify([l.dimension, l.proposition_id, l.message_id ?? l.agent_id ?? l.channel]),
      ),
    );
    expect(result.judged).toBe(true);
    expect(result.judge).toEqual({ provider: "openai-compatible", model: "fake-a" });
    expect(result.overall.n_judged).toBe(labelled.size);
    expect(server.stats.calls - before).toBe(labelled.size);
    expect(result.token_usage.input_tokens).toBeGreaterThan(0);
    const again = await calibrate(...judge, "--format", "json", "--resamples", "0");
    expect(server.stats.calls - before).toBe(labelled.size);
    expect(JSON.parse(again.stdout).overall).toEqual(result.overall);
  }, 60_000);

  it("compares several judges on the same items, with tokens and cost at the project's prices", async () => {
    const project = join(folder(), "dramaturg.yaml");
    writeFileSync(
      project,
      "prices:\n  openai-compatible:fake-b:\n    input_per_million: 1\n    output_per_million: 2\n",
    );
    const r = await calibrate(
      "--judge",
      "openai-compatible:fake-b",
      "fixtures:examples/ensemble/judge-fixtures.json",
      "--judge-base-url",
      server.url,
      "--config",
      project,
      "--format",
      "json",
      "--resamples",
      "0",
    );
    const comparison = JSON.parse(r.stdout);
    expect(comparison.format).toBe("dramaturg.calibration-comparison/v1");
    expect(comparison.judges.map((j: { judge: string }) => j.judge)).toEqual([
      "openai-compatible:fake-b",
      "fixtures:examples/ensemble/judge-fixtures.json",
    ]);
    const [live, fixtures] = comparison.judges;
    const usage = comparison.calibrations[0].token_usage;
    expect(live.cost_usd).toBeCloseTo((usage.input_tokens * 1 + usage.output_tokens * 2) / 1e6, 12);
    expect(live.cost_usd).toBeGreaterThan(0);
    expect(fixtures.cost_usd).toBe(0);
    expect(live.n_judged).toBe(fixtures.n_judged);
    const table = await calibrate(
      "--judge",
      "openai-compatible:fake-b",
      "openai-compatible:fake-c",
      "--judge-base-url",
      server.url,
      "--resamples",
      "0",
    );
    expect(table.stdout).toMatch(/^Judges compared on the same labelled items \(2\)/);
    // fake-c has no price: its cost is unknown, not zero.
    expect(table.stdout).toMatch(/openai-compatible:fake-c .* \?\n/);
  }, 60_000);

  it("--order-effects judges the items three more ways outside the cache and keeps the effects with the calibration", async () => {
    const judge = ["--judge", "openai-compatible:fake-order", "--judge-base-url", server.url];
    await calibrate(...judge, "--resamples", "0", "--format", "json");
    const before = server.stats.calls;
    const r = await calibrate(...judge, "--order-effects", "--resamples", "0", "--format", "json");
    const result = JSON.parse(r.stdout) as CalibrationResult;
    const effects = result.order_effects!;
    expect(effects.verdict_cache).toBe("bypassed");
    expect(effects.conditions.map((c) => c.condition)).toEqual(["individual", "batch", "batch_shuffled"]);
    // The calibration itself was cached; the three passes were not.
    const requests = effects.conditions.reduce((sum, c) => sum + c.requests, 0);
    expect(server.stats.calls - before).toBe(requests);
    expect(effects.conditions[0]!.requests).toBe(result.overall.n_judged);
    const shown = await cli(["show", result.evaluation_id!, "--db", db]);
    expect(shown.stdout).toContain("Order effects of openai-compatible:fake-order");
    const refused = await calibrate("--order-effects");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--order-effects/);
  }, 60_000);

  it("judges a transcript given directly, and refuses a transcript without a judge", async () => {
    const r = await cli([
      "calibrate",
      "--labels",
      ...LABELS,
      "--transcript",
      `${ROOT}examples/ensemble/transcript.json`,
      "--propositions",
      `${ROOT}examples/ensemble/propositions`,
      "--judge",
      `fixtures:${ROOT}examples/ensemble/judge-fixtures.json`,
      "--db",
      "memory://",
      "--format",
      "json",
      "--resamples",
      "0",
    ]);
    const result = JSON.parse(r.stdout) as CalibrationResult;
    expect(result.calibrated_evaluation).toBeNull();
    expect(result.judged).toBe(true);
    const refused = await cli([
      "calibrate",
      "--labels",
      ...LABELS,
      "--transcript",
      `${ROOT}examples/ensemble/transcript.json`,
      "--db",
      "memory://",
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--judge/);
    // Labels of a message the transcript does not have: exit 2 naming file and line, no store created.
    const bad = join(folder(), "bad-labels.csv");
    writeFileSync(bad, "dimension,proposition_id,message_id,score\nadherence,persona-style,m-nowhere,4\n");
    const store = join(folder(), "never-created");
    const rejected = await cli([
      "calibrate",
      "--labels",
      bad,
      "--transcript",
      `${ROOT}examples/ensemble/transcript.json`,
      "--judge",
      `fixtures:${ROOT}examples/ensemble/judge-fixtures.json`,
      "--db",
      store,
    ]);
    expect(rejected.code).toBe(2);
    expect(rejected.stderr).toMatch(/bad-labels\.csv.*2/);
    expect(existsSync(store)).toBe(false);
  }, 60_000);
});
