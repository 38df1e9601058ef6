// `dramaturg init`: a project that evaluates offline at once, and never overwrites a file without --force.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { nextCommands, walkInitProject } from "../../scripts/init-next-steps.ts";
import { PERSONA_DIMENSIONS } from "../../src/core/index.ts";
import { tempDir } from "../temp-dir.ts";
import { BIN, cli } from "./run-cli.ts";

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
    expect(workflow).toMatch(/^ {8}uses: \.\/node_modules\/dramaturg$/m);
    expect(workflow).toMatch(/^ {10}OPENAI_API_KEY: \$\{\{ secrets\.OPENAI_API_KEY \}\}$/m);
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toMatch(/^\.dramaturg\/$/m);
  });

  it("every Next: command and every run step of the generated workflow pass as generated", async () => {
    const dir = emptyFolder();
    const init = await cli(["init", "project"], { cwd: dir });
    expect(init.code).toBe(0);
    const passed: string[] = [];
    await walkInitProject({
      cwd: dir,
      initOutput: init.stdout,
      dramaturg: `node ${JSON.stringify(BIN)}`,
      log: (line) => passed.push(line),
    });
    expect(passed.join("\n")).toMatch(/ok {2}cd project && npx dramaturg ci\n/);
    expect(passed.join("\n")).toMatch(/ok {2}cd project && npx dramaturg serve {2}\(served the dashboard/);
    // The Action's own steps ran: the check, both uploads (their files exist), the failing step skipped.
    expect(passed.join("\n")).toMatch(/ok {2}action step "Persona check" \{"exit_code":"0"\}/);
    expect(passed.join("\n")).toMatch(/action step "Upload JUnit": .* would upload \.\/persona-check\.xml/);
    expect(passed.join("\n")).toMatch(
      /action step "Upload the HTML report": .* would upload \.\/persona-check\.html/,
    );
    expect(passed.join("\n")).toMatch(/action step "Fail on regression": skipped/);
    expect(passed.join("\n")).toMatch(
      /ok {2}workflow step "Persona check": \.\/node_modules\/dramaturg \{"exit-code":"0"\}/,
    );
  }, 120_000);

  it("writes the example's baselines, one per character and one for the channels", async () => {
    const dir = emptyFolder();
    const r = await cli(["init"], { cwd: dir });
    for (const file of ["agnes", "milo", "yusuf", "_environments"]) {
      expect(r.stdout).toContain(`  baselines/${file}.json\n`);
      expect(JSON.parse(readFileSync(join(dir, `baselines/${file}.json`), "utf8")).format).toMatch(
        /^dramaturg\.(environment-)?baseline\/v1$/,
      );
    }
  });

  it("prints the next commands, each through npx, with ci and serve among them", async () => {
    const dir = emptyFolder();
    const r = await cli(["init", "project"], { cwd: dir });
    const next = nextCommands(r.stdout);
    expect(next).toEqual([
      "cd project && npx dramaturg eval",
      "cd project && npx dramaturg ci",
      "cd project && npx dramaturg doctor",
      "cd project && npx dramaturg serve",
    ]);
    expect(r.stdout).toMatch(/live judge.*\n.*npx dramaturg baseline` and commit baselines\//);
  });

  it("says the workflow needs dramaturg in package.json when the folder's package.json lacks it", async () => {
    const dir = emptyFolder();
    const r = await cli(["init"], { cwd: dir });
    expect(r.stdout).toMatch(
      /installs with `npm ci`: commit a package\.json .*\n\(npm install --save-dev dramaturg\)/,
    );
  });

  it("says nothing of package.json when the folder's lists dramaturg", async () => {
    const dir = emptyFolder();
    writeFileSync(join(dir, "package.json"), JSON.stringify({ devDependencies: { dramaturg: "^1.0.0" } }));
    const r = await cli(["init"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/npm ci/);
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
