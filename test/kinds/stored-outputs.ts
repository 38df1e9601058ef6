// Every way a stored evaluation is read back — `show` in each format, `runs`, the API's lists and documents,
// the dashboard's list and detail pages, the static report — for one store holding one evaluation of each
// stored kind, with ids and times made stable so that the same code gives the same bytes (the goldens).
import { readFileSync } from "node:fs";
import { evaluatePersonas } from "../../src/personas/index.ts";
import { createServerApp } from "../../src/server/index.ts";
import { analyzeSession } from "../../src/sessions/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import {
  numericAnswers,
  questionFromFlags,
  readAnswers,
  storeValidation,
  validateAnswers,
} from "../../src/validation/index.ts";
import { staticReport } from "../../src/web/index.ts";
import { cli, DEMO, ROOT } from "../cli/run-cli.ts";
import { handMadeCalibration, storeCalibration } from "../web/calibration-store.ts";

/** A simulation's document, hand-written (a real one needs an agents' model to talk to). */
const SIMULATION = {
  format: "dramaturg.simulation-result/v1",
  world: { file: "harbour.world.yaml", hash: "5f3a0c1d9e2b4a68" },
  model: "openai-compatible:agents",
  seed: 7,
  steps: 2,
  transcript: { messages: 6, dropped: 0, source: "simulation-harbour" },
  interventions: [{ step: 1, name: "reflect", agent_ids: ["ines"] }],
  gate: null,
  statistics: null,
  calls: { agent: 6, judge: 1, interventions: 1, gate: 0, gate_checks: 0 },
  tokens: {
    agents: { input_tokens: 600, output_tokens: 120 },
    interventions: { input_tokens: 80, output_tokens: 4 },
    gate: { input_tokens: 0, output_tokens: 0 },
    total: { input_tokens: 680, output_tokens: 124 },
  },
};

/** The evaluations of the store, one of each stored kind, in the order they were made. */
export interface SeededKinds {
  persona: string;
  session: string;
  conversation: string;
  calibration: string;
  simulation: string;
  experiment: string;
}

/** Fills a store with one evaluation of each stored kind, through the library where it can run offline. */
export async function seedKinds(store: Store): Promise<SeededKinds> {
  const persona = await evaluatePersonas({
    transcript: DEMO[0]!,
    propositions: DEMO[2]!,
    judge: DEMO[4]!,
    store,
  });
  const session = await analyzeSession(`${ROOT}test/fixtures/sessions/four-faults.session.json`, {
    judge: "none",
    store,
  });
  const conversation = await store.evaluations.create({
    kind: "conversation",
    source: "refund-desk.yml",
    agents: ["refund-bot"],
  });
  await store.evaluations.start(conversation.id);
  await store.evaluations.complete(conversation.id, {
    result: JSON.parse(
      readFileSync(`${ROOT}test/fixtures/kinds/refund-desk.conversation-result.json`, "utf8"),
    ),
  });
  const calibration = await storeCalibration(store, handMadeCalibration());
  const simulation = await store.evaluations.create({ kind: "simulation", source: "harbour.world.yaml" });
  await store.evaluations.start(simulation.id);
  await store.evaluations.complete(simulation.id, { result: SIMULATION });
  const experiment = await storeExperiment(store);
  await fixTimes(store);
  return {
    persona: persona.evaluation_id,
    session: session.evaluation_id!,
    conversation: conversation.id,
    calibration,
    simulation: simulation.id,
    experiment,
  };
}

/**
 * An experiment as the runner stores it: its row's configuration and people, and its document — a real one,
 * written by `runExperiment` on the scripted agents and judge (test/experiments/scripted-experiment-model.ts:
 * `tinyScenario({ environments: 2 })`, six people), kept as a file so that no world runs here.
 */
export async function storeExperiment(store: Store): Promise<string> {
  const document = JSON.parse(
    readFileSync(`${ROOT}test/fixtures/kinds/tiny-brainstorm.experiment-result.json`, "utf8"),
  );
  const people = [...new Set<string>(document.environments.flatMap((e: { members: string[] }) => e.members))];
  const row = await store.evaluations.create({
    kind: "experiment",
    source: document.scenario.id,
    config: {
      experiment_key: "0123456789abcdef",
      scenario: { id: document.scenario.id, hash: document.scenario.hash },
      scale: document.scenario.scale,
      seed: document.seed,
      population_hash: document.population.hash,
      models: document.models,
      judge: {
        provider: document.judge.provider,
        model: document.judge.model,
        prompt_version: document.judge.prompt_version,
      },
    },
    agents: people.sort(),
  });
  await store.evaluations.start(row.id);
  await store.evaluations.complete(row.id, { result: document });
  return row.id;
}

/**
 * A validation as `dramaturg validate --experiment` stores it: TinyTroupe's Gazpacho votes against the simulated
 * ones, as a scale and as a number (whose answers are kept for its histogram), naming the experiment.
 */
export async function storeValidationOf(store: Store, experiment: string): Promise<string> {
  const real = `${ROOT}test/fixtures/validation/tinytroupe-gazpacho-real.csv`;
  const simulated = `${ROOT}test/fixtures/validation/tinytroupe-gazpacho-simulated.csv`;
  const vote = { column: "Vote", simulatedColumn: "response" };
  const answers = readAnswers({
    real,
    simulated,
    questions: [
      questionFromFlags({ ...vote, kind: "ordinal", scale: "1-5" }),
      { ...questionFromFlags({ ...vote, kind: "numeric" }), question: "Vote as a number" },
    ],
  });
  const stored = await storeValidation({
    store,
    validation: validateAnswers({ questions: answers, real, simulated }),
    name: "Gazpacho <votes>",
    experiment,
    numeric: numericAnswers(answers),
  });
  return stored.evaluation_id;
}

/**
 * Gives the evaluations and runs fixed, distinct times in the order they were made (runs of one evaluation
 * by agent), so that lists sorted newest first list them the same way on every machine.
 */
async function fixTimes(store: Store): Promise<void> {
  const db = store.db!;
  await db.query(
    `UPDATE evaluations e SET created_at = t.at, started_at = t.at, completed_at = t.at + interval '5 seconds'
       FROM (SELECT id, timestamptz '2026-11-01T09:00:00Z' + (row_number() OVER (ORDER BY created_at, id)) * interval '1 hour' AS at
               FROM evaluations) t
      WHERE e.id = t.id`,
  );
  await db.query(
    `UPDATE evaluation_runs r SET created_at = t.at, started_at = t.at, completed_at = t.at + interval '5 seconds'
       FROM (SELECT r.id, e.created_at + (row_number() OVER (PARTITION BY r.evaluation_id ORDER BY r.agent_id, r.trial)) * interval '1 minute' AS at
               FROM evaluation_runs r JOIN evaluations e ON e.id = r.evaluation_id) t
      WHERE r.id = t.id`,
  );
}

/** Ids and times made stable: each id by its first appearance, every time the same, lengths kept. */
export class Stabiliser {
  private readonly ids = new Map<string, string>();

  constructor(known: readonly string[]) {
    for (const id of known) this.idOf(id);
  }

  private idOf(id: string): string {
    let stable = this.ids.get(id);
    if (!stable) {
      stable = `${(this.ids.size + 1).toString(16).padStart(8, "0")}-0000-4000-8000-000000000000`;
      this.ids.set(id, stable);
    }
    return stable;
  }

  text(text: string): string {
    let out = text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) =>
      this.idOf(id),
    );
    for (const [id, stable] of this.ids) out = out.replaceAll(id.slice(0, 8), stable.slice(0, 8));
    return out
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?/g, (t) =>
        "2000-01-01T00:00:00.000000+00:00".slice(0, t.length),
      )
      .replace(/\d{4}-\d\d-\d\d \d\d:\d\d(?::\d\d)?/g, (t) => "2000-01-01 00:00:00".slice(0, t.length));
  }
}

/**
 * Every output, by a golden's file name: `show.<kind>.<format>.txt`, `<list command>.<format>.txt`, `api…`,
 * `page…`, `report.html.txt`.
 */
export async function storedOutputs(dir: string): Promise<Map<string, string>> {
  const store = await openStore(dir);
  const outputs = new Map<string, string>();
  let seeded: SeededKinds;
  let validation: string;
  try {
    seeded = await seedKinds(store);
    // The validation kind joined after the experiment: made after the others' times were fixed.
    validation = await storeValidationOf(store, seeded.experiment);
  } finally {
    await store.close();
  }
  // The experiment kind joined after the goldens were made: its id is numbered last (below), so that every
  // other id keeps the number it had before.
  const { experiment, ...before } = seeded;
  const stable = new Stabiliser(Object.values(before));
  // The store's folder is a new temporary one each time, and the checkout may be anywhere: the outputs that
  // name them name fixed places (a list page writes a path breakable at its slashes: that form too).
  const wbr = (path: string) => path.split(/(?<=[/:])/).join("<wbr>");
  const keep = (name: string, text: string) =>
    outputs.set(
      name,
      stable.text(
        text
          .replaceAll(dir, "/tmp/store")
          .replaceAll(ROOT, "/repo/")
          .replaceAll(wbr(dir), wbr("/tmp/store"))
          .replaceAll(wbr(ROOT), wbr("/repo/")),
      ),
    );
  for (const [kind, id] of Object.entries(seeded))
    for (const format of ["table", "json", "markdown", "html"]) {
      const r = await cli(["show", id, "--format", format, "--db", dir]);
      keep(`show.${kind}.${format}.txt`, `exit ${r.code}\n${r.stdout}${r.stderr}`);
    }
  const latest = await cli(["show", "--db", dir]);
  keep("show.latest.table.txt", `exit ${latest.code}\n${latest.stdout}${latest.stderr}`);
  for (const command of ["runs", "sessions", "conversations", "simulations"])
    for (const format of ["table", "json"]) {
      const r = await cli([command, "--format", format, "--db", dir]);
      keep(`${command}.${format}.txt`, `exit ${r.code}\n${r.stdout}${r.stderr}`);
    }
  const reopened = await openStore(dir);
  try {
    const app = createServerApp({ store: reopened });
    const get = async (path: string) => {
      const response = await app.request(path, { headers: { accept: "text/html" } });
      return `${response.status}\n${await response.text()}`;
    };
    const personaRun = (await reopened.runs.list({ limit: 1 }))[0]!.id;
    const details: Record<string, string> = {
      runs: personaRun,
      sessions: seeded.session,
      conversations: seeded.conversation,
      calibrations: seeded.calibration,
    };
    for (const [section, id] of Object.entries(details)) {
      keep(`api.${section}.json.txt`, await get(`/api/${section}`));
      keep(`api.${section}.one.json.txt`, await get(`/api/${section}/${id}`));
      keep(`page.${section}.html.txt`, await get(`/${section}`));
      keep(`page.${section}.one.html.txt`, await get(`/${section}/${id}`));
    }
    keep("api.corrections.json.txt", await get("/api/corrections"));
    keep("page.corrections.html.txt", await get("/corrections"));
    keep("api.openapi.json.txt", await get("/api/openapi.json"));
    keep(
      "report.html.txt",
      await staticReport({
        store: reopened,
        evaluationIds: [seeded.persona, seeded.session, seeded.conversation, seeded.calibration],
      }),
    );
    // The experiment's outputs come after all the others' (its show outputs name no id), its id numbered now.
    stable.text(experiment);
    keep("api.experiments.json.txt", await get("/api/experiments"));
    keep("api.experiments.one.json.txt", await get(`/api/experiments/${experiment}`));
    keep("page.experiments.html.txt", await get("/experiments"));
    keep("page.experiments.one.html.txt", await get(`/experiments/${experiment}`));
    // The validation's come after the experiment's, its id numbered last.
    stable.text(validation);
    keep("api.validations.json.txt", await get("/api/validations"));
    keep("api.validations.one.json.txt", await get(`/api/validations/${validation}`));
    keep("page.validations.html.txt", await get("/validations"));
    keep("page.validations.one.html.txt", await get(`/validations/${validation}`));
  } finally {
    await reopened.close();
  }
  for (const format of ["table", "json"]) {
    const r = await cli(["runs", "--kind", "experiment", "--format", format, "--db", dir]);
    keep(`runs.experiment.${format}.txt`, `exit ${r.code}\n${r.stdout}${r.stderr}`);
  }
  for (const format of ["table", "json"]) {
    const r = await cli(["runs", "--kind", "validation", "--format", format, "--db", dir]);
    keep(`runs.validation.${format}.txt`, `exit ${r.code}\n${r.stdout}${r.stderr}`);
  }
  for (const format of ["table", "json", "markdown", "html"]) {
    const r = await cli(["show", validation, "--format", format, "--db", dir]);
    keep(`show.validation.${format}.txt`, `exit ${r.code}\n${r.stdout}${r.stderr}`);
  }
  return outputs;
}
