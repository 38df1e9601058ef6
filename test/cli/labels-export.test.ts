// `dramaturg labels export`: a stored evaluation's labels written as a dramaturg.labels/v1 file that
// `dramaturg calibrate --labels` reads back as what was saved; bad flags exit 2 and write nothing.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { CalibrationResult } from "../../src/calibration/index.ts";
import { readLabels } from "../../src/calibration/index.ts";
import { openStore } from "../../src/store/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { cli, DEMO } from "./run-cli.ts";

const folder = useTempDir("dramaturg-labels-export-");
let db: string;
let evaluationId: string;

/** What was saved: three items, two raters on one of them, a note with a comma and quotes. */
const SAVED = [
  {
    message_id: "m10",
    agent_id: "priya",
    proposition_id: "persona-style",
    rater: "ana",
    score: 1,
    note: 'Too "polished", by far.',
  },
  {
    message_id: "m10",
    agent_id: "priya",
    proposition_id: "persona-style",
    rater: "bo",
    score: 3,
    note: null,
  },
  {
    message_id: "m12",
    agent_id: "priya",
    proposition_id: "persona-style",
    rater: "ana",
    score: 8,
    note: null,
  },
  {
    message_id: "m10",
    agent_id: "priya",
    proposition_id: "breaks-character",
    rater: "ana",
    score: 9,
    note: null,
  },
];

beforeAll(async () => {
  db = join(folder(), "store");
  const evaluated = await cli(["eval", ...DEMO, "--db", db, "--format", "json"]);
  expect(evaluated.code).toBe(0);
  evaluationId = JSON.parse(evaluated.stdout).evaluation_id;
  const store = await openStore(db);
  try {
    for (const label of SAVED)
      await store.labels.save({ evaluation_id: evaluationId, dimension: "adherence", ...label });
  } finally {
    await store.close();
  }
}, 60_000);

describe("dramaturg labels export", () => {
  it.each(["yaml", "jsonl", "csv"])("as %s, what calibrate reads is what was saved", async (format) => {
    const out = join(folder(), `labels.${format}`);
    const exported = await cli([
      "labels",
      "export",
      "--run",
      evaluationId.slice(0, 8),
      "--format",
      format,
      "--out",
      out,
      "--db",
      db,
    ]);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toContain(`wrote 4 label(s) of evaluation ${evaluationId.slice(0, 8)}`);
    const read = readLabels([out]).labels.map(({ source: _, ...label }) => label);
    const expected = SAVED.map(({ note, ...label }) => ({
      dimension: "adherence",
      ...label,
      ...(note !== null ? { note } : {}),
    }));
    const key = (l: { proposition_id: string; message_id?: string; rater?: string }) =>
      `${l.proposition_id}/${l.message_id}/${l.rater}`;
    expect([...read].sort((a, b) => key(a).localeCompare(key(b)))).toEqual(
      [...expected].sort((a, b) => key(a).localeCompare(key(b))),
    );

    const calibrated = await cli([
      "calibrate",
      "--labels",
      out,
      "--run",
      evaluationId,
      "--db",
      db,
      "--format",
      "json",
      "--resamples",
      "0",
    ]);
    expect([0, 1]).toContain(calibrated.code);
    const result = JSON.parse(calibrated.stdout) as CalibrationResult;
    expect(result.not_judged).toBe(0);
    expect(result.overall.n).toBe(3);
    if (format === "yaml") expect(readFileSync(out, "utf8")).toMatch(/^format: dramaturg\.labels\/v1\n/);
  });

  it("prints to stdout without --out, in the store's order (by target, then rater)", async () => {
    const exported = await cli(["labels", "export", "--run", evaluationId, "--format", "csv", "--db", db]);
    expect(exported.code).toBe(0);
    const rows = exported.stdout
      .split("\n")
      .filter((l) => l && !l.startsWith("#"))
      .slice(1);
    expect(rows).toEqual([
      "adherence,breaks-character,priya,m10,,9,,ana,",
      'adherence,persona-style,priya,m10,,1,,ana,"Too ""polished"", by far."',
      "adherence,persona-style,priya,m10,,3,,bo,",
      "adherence,persona-style,priya,m12,,8,,ana,",
    ]);
  });

  it("--rater keeps one rater's labels", async () => {
    const exported = await cli([
      "labels",
      "export",
      "--run",
      evaluationId,
      "--format",
      "jsonl",
      "--rater",
      "bo",
      "--db",
      db,
    ]);
    expect(exported.code).toBe(0);
    const lines = exported.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.slice(1)).toEqual([
      {
        dimension: "adherence",
        proposition_id: "persona-style",
        agent_id: "priya",
        message_id: "m10",
        score: 3,
        rater: "bo",
      },
    ]);
  });

  it.each([
    [["--format", "xml"], "--format"],
    [["--rater", ""], "--rater"],
  ])("a bad flag %j exits 2 naming it and writes nothing", async (extra, flag) => {
    const out = join(folder(), "not-written.yaml");
    const result = await cli(["labels", "export", "--run", evaluationId, "--db", db, "--out", out, ...extra]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(flag);
    expect(existsSync(out)).toBe(false);
  });

  it("an unknown run exits 2 naming --run", async () => {
    const result = await cli(["labels", "export", "--run", "ffffffff", "--db", db]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--run.*no evaluation or run with id ffffffff/);
  });

  it("a store without the folder exits 2 and creates none", async () => {
    const missing = join(folder(), "no-store");
    const result = await cli(["labels", "export", "--run", evaluationId, "--db", missing]);
    expect(result.code).toBe(2);
    expect(existsSync(missing)).toBe(false);
  });
});
