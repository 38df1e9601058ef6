// The project file: mistakes exit 2 naming the file, the line and what was expected; it is found by walking
// up; flags override it; `config print` says where each value came from; help suggests what was meant.
import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
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

/** A project around the ensemble demo: transcript, propositions and fixtures copied in, paths relative. */
function demoProject(extra = ""): string {
  const dir = tempDir("dramaturg-demo-");
  cpSync(`${ROOT}examples/ensemble/transcript.json`, join(dir, "data/transcript.json"));
  cpSync(`${ROOT}examples/ensemble/propositions`, join(dir, "props"), { recursive: true });
  cpSync(`${ROOT}examples/ensemble/judge-fixtures.json`, join(dir, "judge/fixtures.json"));
  writeFileSync(
    join(dir, "dramaturg.yaml"),
    `sources: [data/*.json]\npropositions: props\njudge:\n  model: fixtures:judge/fixtures.json\ndb: memory://\n${extra}`,
  );
  return dir;
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

  it("nothing is written when the project file is bad", async () => {
    const dir = project("sources: [a.json]\ntrials: many\n");
    await cli(["eval"], { cwd: dir });
    expect(existsSync(join(dir, ".dramaturg"))).toBe(false);
  });

  it("a file of comments only is a valid project with every setting at its default", () => {
    const dir = project("# nothing set yet\n");
    expect(resolveSettings({ flags: {}, cwd: dir }).file).toBe(join(dir, "dramaturg.yaml"));
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
