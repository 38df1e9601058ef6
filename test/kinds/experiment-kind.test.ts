// The experiment kind read back through the registry: `show ID` prints what `experiment report ID` prints, in
// each format; `runs --kind experiment` lists experiments with their headline; the loader takes an id, its
// first 8 characters or none, and refuses another kind's id and an experiment that did not complete.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InputError } from "../../src/core/index.ts";
import { experimentKind } from "../../src/experiments/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { cli } from "../cli/run-cli.ts";
import { useTempDir } from "../temp-dir.ts";
import { storeExperiment } from "./stored-outputs.ts";

const dir = useTempDir("dramaturg-experiment-kind-");
let db: string;
let id: string;
let failed: string;

beforeAll(async () => {
  db = join(dir(), "store");
  const store = await openStore(db);
  try {
    const row = await store.evaluations.create({ kind: "experiment", source: "tiny-brainstorm" });
    await store.evaluations.start(row.id);
    await store.evaluations.fail(row.id, "the agents' model was unreachable");
    failed = row.id;
    // An hour before the completed one, so that newest first lists them in one order on every machine.
    await store.db!.query(
      "UPDATE evaluations SET created_at = created_at - interval '1 hour' WHERE id = $1",
      [failed],
    );
    id = await storeExperiment(store);
  } finally {
    await store.close();
  }
}, 60_000);

describe("an experiment read back through the registry", () => {
  for (const format of ["table", "markdown", "json"])
    it(`show ID --format ${format} prints what experiment report ID prints`, async () => {
      const shown = await cli(["show", id.slice(0, 8), "--format", format, "--db", db]);
      const reported = await cli(["experiment", "report", id.slice(0, 8), "--format", format, "--db", db]);
      expect(shown.stderr).toBe("");
      expect(shown.code).toBe(0);
      expect(shown).toEqual(reported);
      expect(shown.stdout).toMatch(/tiny-brainstorm/);
    });

  it("runs --kind experiment lists each with its arms' size and headline, and a failed one with dashes", async () => {
    const table = await cli(["runs", "--kind", "experiment", "--db", db]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split("\n")).toEqual([
      "id        created              status     scale  n/arm  significant  scenario",
      expect.stringMatching(
        new RegExp(
          `^${id.slice(0, 8)}  .{19}  completed      1      2       1 of 6  tiny-brainstorm · adherence \\+3\\.73\\*$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(`^${failed.slice(0, 8)}  .{19}  failed         –      –            –  tiny-brainstorm$`),
      ),
      "",
    ]);
    const json = JSON.parse(
      (await cli(["runs", "--kind", "experiment", "--format", "json", "--db", db])).stdout,
    );
    expect(json.experiments.map((e: { id: string }) => e.id)).toEqual([id, failed]);
    expect(json.experiments[0]).toMatchObject({
      scenario: "tiny-brainstorm",
      environments: 2,
      significant: 1,
      headline: { metric: "adherence", significant: true },
    });
  });
});

describe("experimentKind.load", () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore(db);
  });
  afterAll(async () => {
    await store.close();
  });

  it("reads the latest experiment with no id, by its whole id and by its first 8 characters alike", async () => {
    const latest = await experimentKind.load(store);
    expect(latest.evaluation_id).toBe(id);
    expect(await experimentKind.load(store, id.slice(0, 8))).toEqual(latest);
    expect(latest.document.scenario.id).toBe("tiny-brainstorm");
  });

  it("refuses an experiment that did not complete, and an evaluation of another kind, as bad input", async () => {
    await expect(experimentKind.load(store, failed)).rejects.toThrow(
      new InputError(
        `experiment ${failed.slice(0, 8)} is failed; it has no result yet (run it again with the same flags and --db to finish it)`,
      ),
    );
    const simulation = await store.evaluations.create({ kind: "simulation", source: "harbour.world.yaml" });
    const refused = await experimentKind.load(store, simulation.id).catch((error: unknown) => error);
    expect(InputError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toBe(
      `${simulation.id.slice(0, 8)} is a simulation evaluation, not an experiment`,
    );
  });
});
