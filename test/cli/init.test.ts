// `dramaturg init`: a project that evaluates offline at once, and never overwrites a file without --force.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { PERSONA_DIMENSIONS } from "../../src/core/index.ts";
import { tempDir } from "../temp-dir.ts";
import { cli } from "./run-cli.ts";

function emptyFolder(): string {
  return tempDir("dramaturg-init-");
}

describe("dramaturg init", () => {
  it("in an empty folder, init then eval with no flags prints the example's scores with 0 errored", async () => {
    const dir = emptyFolder();
    const init = await cli(["init"], { cwd: dir });
    expect(init.code).toBe(0);
    const r = await cli(["eval"], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Agnes Thorvald\s+5\s+\d\.\d\d/);
    expect(r.stdout).toMatch(/#dm-agnes-yusuf\s+\d\.\d\d\s+1/);
    expect(r.stdout).toMatch(/ 0 errored/);
  });

  it("the example is three characters, about twelve messages and one DM, with hand-written verdicts that say so", async () => {
    const dir = emptyFolder();
    await cli(["init"], { cwd: dir });
    const transcript = JSON.parse(readFileSync(join(dir, "transcripts/example.json"), "utf8"));
    expect(transcript.agents).toHaveLength(3);
    expect(transcript.messages.length).toBeGreaterThanOrEqual(10);
    expect(
      new Set(
        transcript.messages
          .filter((m: { recipient?: string }) => m.recipient)
          .map((m: { channel: string }) => m.channel),
      ).size,
    ).toBe(1);
    const fixtures = JSON.parse(readFileSync(join(dir, "fixtures/judge-fixtures.json"), "utf8"));
    expect(fixtures.note).toMatch(/HAND-WRITTEN/);
    expect(fixtures.note).toMatch(/NOT the output of any model/);
  });

  it("writes the project file with a schema line, copies of the five built-in sets, a workflow and .gitignore", async () => {
    const dir = emptyFolder();
    await cli(["init"], { cwd: dir });
    const projectFile = readFileSync(join(dir, "dramaturg.yaml"), "utf8");
    expect(projectFile.split("\n")[0]).toBe(
      "# yaml-language-server: $schema=./schemas/dramaturg.schema.json",
    );
    expect(parseYaml(projectFile)).toMatchObject({
      sources: ["transcripts/*.json"],
      propositions: "propositions",
      judge: { model: "fixtures:fixtures/judge-fixtures.json" },
      baselines: "baselines",
    });
    const schema = JSON.parse(readFileSync(join(dir, "schemas/dramaturg.schema.json"), "utf8"));
    const printed = await cli(["schema", "config"]);
    expect(schema).toEqual(JSON.parse(printed.stdout));
    for (const dimension of PERSONA_DIMENSIONS)
      expect(readFileSync(join(dir, `propositions/${dimension}/_default.yaml`), "utf8")).toMatch(/^# /);
    const workflow = readFileSync(join(dir, ".github/workflows/persona-check.yml"), "utf8");
    expect(workflow).toMatch(/node-version: 24/);
    expect(workflow).toMatch(/npx dramaturg ci .*--markdown .* --junit .* --html persona-check\.html/);
    expect(workflow).toMatch(/path: persona-check\.html/);
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toMatch(/^\.dramaturg\/$/m);
  });

  it("prints the next three commands to run", async () => {
    const dir = emptyFolder();
    const r = await cli(["init", "project"], { cwd: dir });
    const next = r.stdout.split("Next:")[1]!.trim().split("\n");
    expect(next).toHaveLength(3);
    expect(next[0]).toMatch(/cd project && npx dramaturg eval/);
    // Typed in a shell where dramaturg is the project's dependency: through npx, every one.
    for (const line of next) expect(line).toMatch(/^\s*cd project && npx dramaturg /);
  });

  it("a second init refuses with exit 2, lists the files and writes nothing", async () => {
    const dir = emptyFolder();
    await cli(["init"], { cwd: dir });
    writeFileSync(join(dir, "dramaturg.yaml"), "# mine\n");
    const r = await cli(["init"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/dramaturg\.yaml, schemas\/dramaturg\.schema\.json/);
    expect(r.stderr).toMatch(/--force/);
    expect(readFileSync(join(dir, "dramaturg.yaml"), "utf8")).toBe("# mine\n");
  });

  it("refuses when only one file is in the way, and writes none of the others", async () => {
    const dir = emptyFolder();
    mkdirSync(join(dir, "transcripts"));
    writeFileSync(join(dir, "transcripts/example.json"), "{}");
    const r = await cli(["init"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/these files already exist: transcripts\/example\.json/);
    expect(existsSync(join(dir, "dramaturg.yaml"))).toBe(false);
  });

  it("--force overwrites, and an existing .gitignore keeps its lines and gains the store's once", async () => {
    const dir = emptyFolder();
    writeFileSync(join(dir, ".gitignore"), "node_modules/");
    await cli(["init"], { cwd: dir });
    writeFileSync(join(dir, "dramaturg.yaml"), "# mine\n");
    expect((await cli(["init", "--force"], { cwd: dir })).code).toBe(0);
    expect(readFileSync(join(dir, "dramaturg.yaml"), "utf8")).toMatch(/^# yaml-language-server/);
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe(
      "node_modules/\n# Dramaturg's local store\n.dramaturg/\n",
    );
  });
});
