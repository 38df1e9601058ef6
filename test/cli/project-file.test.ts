// The project file: mistakes exit 2 naming the file, the line and what was expected; it is found by walking
// up; flags override it; `config print` says where each value came from; help suggests what was meant.
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveSettings } from "../../src/cli/settings.ts";
import { tempDir } from "../temp-dir.ts";
import { cli, ROOT } from "./run-cli.ts";

function project(yaml: string): string {
  const dir = tempDir("dramaturg-project-");
  writeFileSync(join(dir, "dramaturg.yaml"), yaml);
  return dir;
}

/**
 * A project around the ensemble demo: transcript, propositions and fixtures copied in, paths relative; its
 * file as given, or the demo's with an in-memory store and `extra` settings.
 */
function demoProject(extra = "", { yaml }: { yaml?: string } = {}): string {
  const dir = tempDir("dramaturg-demo-");
  cpSync(`${ROOT}examples/ensemble/transcript.json`, join(dir, "data/transcript.json"));
  cpSync(`${ROOT}examples/ensemble/propositions`, join(dir, "props"), { recursive: true });
  cpSync(`${ROOT}examples/ensemble/judge-fixtures.json`, join(dir, "judge/fixtures.json"));
  writeFileSync(
    join(dir, "dramaturg.yaml"),
    yaml ??
      `sources: [data/*.json]\npropositions: props\njudge:\n  model: fixtures:judge/fixtures.json\ndb: memory://\n${extra}`,
  );
  return dir;
}

/** Every file and folder under `dir`, relative to it, sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

describe("a project file with a mistake", () => {
  it("an unknown key exits 2 naming the file, the line and the keys expected", async () => {
    const dir = project("sources: [a.json]\njudge:\n  model: openai:fake-model-b\n  modle: x\n");
    const r = await cli(["eval"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(dir, "dramaturg.yaml")}:4:3: unknown key "modle"`);
    expect(r.stderr).toMatch(/expected one of model, base_url/);
  });

  it("a wrong type exits 2 naming the file, the line and the type expected", async () => {
    const dir = project("sources: [a.json]\ntrials: many\n");
    const r = await cli(["eval"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${join(dir, "dramaturg.yaml")}:2:9: trials: expected a number, got the string "many"`,
    );
  });

  it("an API key written in the file exits 2 naming the line and where the key belongs", async () => {
    const dir = project(
      "sources: [a.json]\njudge: { model: openai:fake-model-b, api_key: sk-abcdefghijklmnop }\n",
    );
    const r = await cli(["eval"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(dir, "dramaturg.yaml")}:2:`);
    expect(r.stderr).toMatch(/expected it in the environment \(OPENAI_API_KEY/);
    expect(r.stderr).not.toContain("sk-abcdefghijklmnop");
  });

  it("an API key on a line of its own is found too", async () => {
    const dir = project("judge:\n  model: openai:fake-model-b\n  api_key: sk-abcdefghijklmnop\n");
    const r = await cli(["eval"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(dir, "dramaturg.yaml")}:3:3:`);
  });

  it("a database password written in the file exits 2 naming the line", async () => {
    const dir = project("sources: [a.json]\ndb: postgres://ci:hunter2secret@db.internal/dramaturg\n");
    const r = await cli(["eval"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/dramaturg\.yaml:2:5: a password is written in a URL/);
    expect(r.stderr).not.toContain("hunter2secret");
  });

  it("nothing is written when the project file is bad, where the same project with a good one writes its store", async () => {
    // Without `db`, eval keeps its store in .dramaturg beside the project file: a run that starts writes it.
    const good =
      "sources: [data/*.json]\npropositions: props\njudge:\n  model: fixtures:judge/fixtures.json\n";
    const control = demoProject("", { yaml: good });
    const untouched = filesUnder(control);
    expect(await cli(["eval"], { cwd: control })).toMatchObject({ code: 0, stderr: "" });
    expect(existsSync(join(control, ".dramaturg"))).toBe(true);
    expect(filesUnder(control)).not.toEqual(untouched);
    // The same project, one mistake each: a wrong type, and a key that would be ignored if unchecked.
    for (const [mistake, message] of [
      ["trials: many\n", /trials: expected a number/],
      ["trails: 2\n", /unknown key "trails"/],
    ] as const) {
      const dir = demoProject("", { yaml: good + mistake });
      const before = filesUnder(dir);
      const r = await cli(["eval"], { cwd: dir });
      expect(r.code, mistake).toBe(2);
      expect(r.stderr, mistake).toMatch(message);
      expect(filesUnder(dir), mistake).toEqual(before);
    }
  });

  it("a file of comments only is a valid project with every setting at its default", () => {
    const dir = project("# nothing set yet\n");
    const file = join(dir, "dramaturg.yaml");
    // The defaults written out, not read from DEFAULT_SETTINGS: changing one is a change this test shows.
    expect(resolveSettings({ flags: {}, cwd: dir, env: {} })).toStrictEqual({
      settings: {
        sources: [],
        judge: {
          model: "",
          mode: "individual",
          concurrency: 16,
          timeout_ms: 60_000,
          temperature: 0,
          retries: 4,
        },
        dimensions: ["adherence", "consistency", "fluency", "convergence", "ideas_quantity"],
        trials: 1,
        thresholds: { regression: 1, minimum: {} },
        baselines: join(dir, "baselines"),
        db: join(dir, ".dramaturg"),
        cache: true,
        prices: {},
        corrections: {},
        online: [],
        export: [],
      },
      origins: Object.fromEntries(
        [
          "sources",
          "judge.model",
          "judge.mode",
          "judge.concurrency",
          "judge.timeout_ms",
          "judge.temperature",
          "judge.retries",
          "dimensions",
          "trials",
          "thresholds.regression",
          "thresholds.minimum",
          "baselines",
          "db",
          "cache",
          "prices",
          "corrections",
          "online",
          "export",
        ].map((path) => [path, "default"]),
      ),
      file,
      root: dir,
    });
  });
});

describe("inside a project", () => {
  it("eval in a subfolder finds the project file by walking up and needs no flags", async () => {
    const dir = demoProject();
    mkdirSync(join(dir, "deep/er"), { recursive: true });
    const r = await cli(["eval", "--format", "json"], { cwd: join(dir, "deep/er") });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.totals.errored).toBe(0);
    expect(json.runs.map((x: { agent_id: string }) => x.agent_id).sort()).toEqual([
      "dov",
      "ines",
      "priya",
      "wendell",
    ]);
  });

  it("paths in the file are relative to the file, flags to the working directory", () => {
    const dir = demoProject();
    mkdirSync(join(dir, "sub"));
    const { settings } = resolveSettings({ flags: { baselines: "golden" }, cwd: join(dir, "sub") });
    expect(settings.propositions).toBe(join(dir, "props"));
    expect(settings.judge.model).toBe(`fixtures:${join(dir, "judge/fixtures.json")}`);
    expect(settings.baselines).toBe(join(dir, "sub/golden"));
  });

  it("every key of the file is read into the settings, paths against the file's folder", () => {
    const dir = project(`sources: [data/*.json, store]
propositions: props
judge:
  model: openai:gpt-test
  base_url: http://127.0.0.1:11434/v1
  api_key_env: MY_JUDGE_KEY
  mode: batch
  concurrency: 3
  timeout_ms: 5000
  temperature: 0.5
  retries: 2
dimensions: [fluency, adherence]
agents: [dov]
trials: 3
sample: { size: 5, seed: 9 }
thresholds: { regression: 0.5, minimum: { fluency: 6 } }
baselines: golden
db: data/store
cache: false
prices: { "openai:gpt-test": { input_per_million: 1, output_per_million: 2 } }
corrections: { marta: { gate_fluency_threshold: 5 } }
online:
  - { name: voice, sample: { rate: 0.1 }, schedule: "0 * * * *", judge: fixtures:judge.json }
export:
  - { to: langfuse, after: [eval], propositions: true }
`);
    mkdirSync(join(dir, "sub"));
    const { settings, origins } = resolveSettings({ flags: {}, cwd: join(dir, "sub"), env: {} });
    expect(settings).toStrictEqual({
      sources: [join(dir, "data/*.json"), "store"],
      propositions: join(dir, "props"),
      judge: {
        model: "openai:gpt-test",
        base_url: "http://127.0.0.1:11434/v1",
        api_key_env: "MY_JUDGE_KEY",
        mode: "batch",
        concurrency: 3,
        timeout_ms: 5000,
        temperature: 0.5,
        retries: 2,
      },
      dimensions: ["fluency", "adherence"],
      agents: ["dov"],
      trials: 3,
      sample: { size: 5, seed: 9 },
      thresholds: { regression: 0.5, minimum: { fluency: 6 } },
      baselines: join(dir, "golden"),
      db: join(dir, "data/store"),
      cache: false,
      prices: { "openai:gpt-test": { input_per_million: 1, output_per_million: 2 } },
      corrections: { marta: { gate_fluency_threshold: 5 } },
      online: [
        {
          name: "voice",
          source: "messages",
          sample: { rate: 0.1 },
          schedule: "0 * * * *",
          dimensions: ["adherence", "consistency"],
          judge: `fixtures:${join(dir, "judge.json")}`,
        },
      ],
      export: [{ to: "langfuse", after: ["eval"], propositions: true }],
    });
    expect(new Set(Object.values(origins))).toEqual(new Set(["file"]));
  });

  it("the file may also be called dramaturg.config.yaml", () => {
    const dir = tempDir("dramaturg-project-");
    writeFileSync(join(dir, "dramaturg.config.yaml"), "trials: 2\n");
    expect(resolveSettings({ flags: {}, cwd: dir, env: {} })).toMatchObject({
      file: join(dir, "dramaturg.config.yaml"),
      settings: { trials: 2 },
    });
  });

  it("the environment overrides the file, and every flag overrides both", () => {
    const dir = demoProject("trials: 2\nsample: { size: 5, seed: 9 }\n");
    const env = { DRAMATURG_JUDGE: "openai:from-env", DRAMATURG_DB: "env-store" };
    const fromEnv = resolveSettings({ flags: { seed: "4" }, cwd: dir, env });
    expect(fromEnv.settings).toMatchObject({
      judge: { model: "openai:from-env" },
      db: join(dir, "env-store"),
      sample: { size: 5, seed: 4 },
    });
    expect(fromEnv.origins).toMatchObject({ "judge.model": "env", db: "env", sample: "flag" });
    const { settings } = resolveSettings({
      flags: {
        sources: ["other.json"],
        propositions: "other-props",
        judge: "anthropic:from-flag",
        judgeBaseUrl: "http://127.0.0.1:8080/v1",
        judgeApiKeyEnv: "FLAG_KEY",
        mode: "batch",
        concurrency: "16",
        timeout: "700",
        temperature: "1",
        retries: "0",
        dimensions: "fluency",
        agents: "ines,dov",
        trials: "4",
        sample: "7",
        seed: "3",
        threshold: "2",
        baselines: "flag-baselines",
        db: "memory://",
        cache: false,
      },
      cwd: dir,
      env,
    });
    expect(settings).toMatchObject({
      sources: [join(dir, "other.json")],
      propositions: join(dir, "other-props"),
      judge: {
        model: "anthropic:from-flag",
        base_url: "http://127.0.0.1:8080/v1",
        api_key_env: "FLAG_KEY",
        mode: "batch",
        concurrency: 16,
        timeout_ms: 700,
        temperature: 1,
        retries: 0,
      },
      dimensions: ["fluency"],
      agents: ["ines", "dov"],
      trials: 4,
      sample: { size: 7, seed: 3 },
      thresholds: { regression: 2 },
      baselines: join(dir, "flag-baselines"),
      db: "memory://",
      cache: false,
    });
  });

  it("flags override the file", async () => {
    const dir = demoProject("agents: [dov, ines]\n");
    const r = await cli(["eval", "--agents", "priya", "--dimensions", "fluency", "--format", "json"], {
      cwd: dir,
    });
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.runs.map((x: { agent_id: string }) => x.agent_id)).toEqual(["priya"]);
    expect(json.dimensions).toEqual(["fluency"]);
  });
});

describe("dramaturg config print", () => {
  it("says for each value whether it came from the file, a flag, the environment or a default", () => {
    const dir = demoProject("trials: 2\n");
    const { origins } = resolveSettings({
      flags: { mode: "batch" },
      cwd: dir,
      env: { DRAMATURG_DB: "elsewhere" },
    });
    expect(origins).toMatchObject({
      trials: "file",
      "judge.model": "file",
      "judge.mode": "flag",
      db: "env",
      "judge.concurrency": "default",
    });
  });

  it("prints the merged settings as JSON with their origins", async () => {
    const dir = demoProject();
    const r = await cli(["config", "print", "--format", "json", "--concurrency", "3"], { cwd: dir });
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.project_file).toBe(join(dir, "dramaturg.yaml"));
    expect(json.settings.judge.concurrency).toBe(3);
    expect(json.origins["judge.concurrency"]).toBe("flag");
    expect(json.origins.propositions).toBe("file");
  });

  it("prints YAML with each value's origin as a comment", async () => {
    const dir = demoProject();
    const r = await cli(["config", "print", "--mode", "batch"], { cwd: dir });
    expect(r.stdout).toMatch(/^ {2}mode: batch # flag$/m);
    expect(r.stdout).toMatch(/^propositions: .*props # file$/m);
    expect(r.stdout).toMatch(/^ {2}retries: 4 # default$/m);
  });
});

describe("help that teaches", () => {
  it("an unknown command exits 2 and suggests the nearest one", async () => {
    const r = await cli(["evl"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'evl'/);
    expect(r.stderr).toMatch(/Did you mean eval\?/);
  });

  it("an unknown flag of a new command suggests the nearest one", async () => {
    const r = await cli(["init", "--forse"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Did you mean --force\?/);
  });

  it("every command's help shows at least two real examples", async () => {
    const { buildProgram } = await import("../../src/cli/program.ts");
    const program = await buildProgram();
    const leaves = program.commands.flatMap((c) => (c.commands.length ? c.commands : [c]));
    expect(leaves.length).toBeGreaterThan(8);
    for (const command of leaves) {
      const name =
        command.parent === program ? command.name() : `${command.parent!.name()} ${command.name()}`;
      const r = await cli([...name.split(" "), "--help"]);
      const examples = r.stdout.split("Examples:")[1] ?? "";
      expect(examples.match(/^ {2}\$ .*dramaturg /gm)?.length ?? 0, name).toBeGreaterThanOrEqual(2);
    }
  });
});
