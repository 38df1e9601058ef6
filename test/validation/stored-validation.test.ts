// A validation stored as an evaluation of kind `validation` and read back: the same bytes on every backend and
// through `show`, the experiment it validates checked and kept, its list, and bad input that stores nothing.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/index.ts";
import {
  listValidations,
  questionFromFlags,
  renderValidationMarkdown,
  renderValidationTable,
  storeValidation,
  type Validation,
  validateFiles,
  validationAnswers,
  validationKind,
  validationsOfExperiment,
} from "../../src/validation/index.ts";
import { cli } from "../cli/run-cli.ts";
import { describeStore } from "../store/backends.ts";
import { tempDir } from "../temp-dir.ts";

const FIXTURES = new URL("../fixtures/validation/", import.meta.url).pathname;
const REAL = join(FIXTURES, "tinytroupe-gazpacho-real.csv");
const SIMULATED = join(FIXTURES, "tinytroupe-gazpacho-simulated.csv");
const VOTE = ["--column", "Vote", "--simulated-column", "response", "--kind", "ordinal", "--scale", "1-5"];

const gazpacho = (): Validation =>
  validateFiles({
    real: REAL,
    simulated: SIMULATED,
    questions: [
      questionFromFlags({ column: "Vote", simulatedColumn: "response", kind: "ordinal", scale: "1-5" }),
    ],
  });

describeStore("a stored validation", (backend) => {
  it("reads back as the same table, Markdown and JSON it was stored from", async () => {
    const store = backend.store();
    const validation = gazpacho();
    const { evaluation_id: id } = await storeValidation({ store, validation });
    const stored = await validationKind.load(store, id.slice(0, 8));
    expect(stored.evaluation_id).toBe(id);
    expect(validationKind.text(stored)).toBe(renderValidationTable(validation));
    expect(validationKind.markdown(stored)).toBe(renderValidationMarkdown(validation));
    expect(JSON.stringify(validationKind.json(stored), null, 2)).toBe(JSON.stringify(validation, null, 2));
  });

  it("keeps the experiment it validates by its full id, and names it in its list line", async () => {
    const store = await backend.fresh();
    const experiment = await store.evaluations.create({ kind: "experiment", source: "gazpacho" });
    const { evaluation_id: id, validation } = await storeValidation({
      store,
      validation: gazpacho(),
      name: "Gazpacho, arm B",
      experiment: experiment.id.slice(0, 8),
    });
    expect(validation.experiment).toBe(experiment.id);
    expect(Object.keys(validation).slice(0, 4)).toEqual(["format", "real", "simulated", "experiment"]);
    expect((await validationKind.load(store, id)).experiment).toBe(experiment.id);
    const other = await storeValidation({ store, validation: gazpacho() });
    expect(await listValidations({ store })).toMatchObject([
      { id: other.evaluation_id, name: `${SIMULATED} against ${REAL}`, experiment: null },
      {
        id,
        name: "Gazpacho, arm B",
        experiment: experiment.id,
        questions: 1,
        failed: 1,
        verdicts: { consistent: 0, shifted: 0, collapsed: 1, different: 0 },
      },
    ]);
    expect((await validationsOfExperiment(store, experiment.id)).map((r) => r.id)).toEqual([id]);
  });

  it("refuses an experiment id of nothing or of another kind, storing nothing", async () => {
    const store = await backend.fresh();
    const { evaluation_id: stored } = await storeValidation({ store, validation: gazpacho() });
    for (const experiment of ["00000000-0000-4000-8000-000000000000", "0000000", stored]) {
      const error = await storeValidation({ store, validation: gazpacho(), experiment }).catch((e) => e);
      expect(InputError.isInstance(error), String(error)).toBe(true);
    }
    expect((await listValidations({ store })).map((r) => r.id)).toEqual([stored]);
  });

  it("keeps a numeric question's answers for its chart, and none for the others", async () => {
    const store = backend.store();
    const numeric = new Map([["Age", { real: [30, 41, 52], simulated: [33, 35] }]]);
    const { evaluation_id: id } = await storeValidation({ store, validation: gazpacho(), numeric });
    expect(await validationAnswers(store, id)).toEqual(numeric);
    const { evaluation_id: none } = await storeValidation({ store, validation: gazpacho() });
    expect((await validationAnswers(store, none)).size).toBe(0);
  });

  it("is refused by the loader for an id of another kind", async () => {
    const store = backend.store();
    const experiment = await store.evaluations.create({ kind: "experiment", source: "x" });
    await expect(validationKind.load(store, experiment.id)).rejects.toThrow(/not a validation/);
  });
});

describe("dramaturg validate --db, then show", () => {
  it("stores the validation, prints its id, and show reprints each format byte for byte", async () => {
    const db = join(tempDir(), "store");
    const outputs: Record<string, string> = {};
    let id = "";
    for (const format of ["table", "markdown", "json"]) {
      const run = await cli(["validate", REAL, SIMULATED, ...VOTE, "--format", format, "--db", db]);
      expect(run.code, run.stderr).toBe(1);
      id = run.stderr.match(
        /^stored as validation ([0-9a-f-]{36}) in .*`dramaturg show ([0-9a-f]{8})`/m,
      )![1]!;
      outputs[format] = run.stdout;
      const shown = await cli(["show", id, "--format", format, "--db", db]);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toBe(run.stdout);
    }
    expect(outputs.table).toMatch(/^Vote .* collapsed$/m);
    const listed = await cli(["runs", "--kind", "validation", "--db", db]);
    expect(listed.stdout).toMatch(
      new RegExp(`^${id.slice(0, 8)} .* completed +1 +1  .*gazpacho-simulated\\.csv against`, "m"),
    );
    expect(listed.stdout.trim().split("\n")).toHaveLength(4);
  });

  it("names it and the experiment it validates; an unknown experiment exits 2 and writes nothing", async () => {
    const dir = tempDir();
    const db = join(dir, "store");
    const out = join(dir, "v.json");
    const missing = await cli(["validate", REAL, SIMULATED, ...VOTE, "--experiment", "abcdef12", "--db", db]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no store here to find experiment abcdef12 in/);
    expect(existsSync(db)).toBe(false);
    await cli(["validate", REAL, SIMULATED, ...VOTE, "--name", "first", "--db", db]);
    const unknown = await cli([
      "validate",
      REAL,
      SIMULATED,
      ...VOTE,
      "--experiment",
      "abcdef12",
      "--out",
      out,
      "--db",
      db,
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--experiment: no evaluation or run with id abcdef12/);
    expect(readdirSync(dir)).toEqual(["store"]);
    const json = JSON.parse(
      (await cli(["runs", "--kind", "validation", "--format", "json", "--db", db])).stdout,
    );
    expect(json.validations.map((r: { name: string }) => r.name)).toEqual(["first"]);
  });
});
