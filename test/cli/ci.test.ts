import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findAll, parseXml } from "../regression/xml.ts";
import { copyDemo, editJson, isDovAdherence, lowerDovAdherence } from "./demo-copy.ts";
import { cli, ROOT } from "./run-cli.ts";

const ci = (dir: string, ...args: string[]) =>
  cli(["ci", "--config", join(dir, "dramaturg.yaml"), "--db", "memory://", ...args]);

describe("dramaturg baseline and dramaturg ci on the demo", () => {
  it("baseline writes one file per agent and _environments.json, then ci passes against them", async () => {
    const dir = copyDemo();
    rmSync(join(dir, "baselines"), { recursive: true });
    const made = await cli(["baseline", "--config", join(dir, "dramaturg.yaml"), "--db", "memory://"]);
    expect(made.code).toBe(0);
    for (const f of ["dov", "ines", "priya", "wendell", "_environments"])
      expect(existsSync(join(dir, "baselines", `${f}.json`))).toBe(true);
    expect(made.stdout).toMatch(/wrote .*baselines\/dov\.json {2}Dov Marchetti: adherence 7\.54/);
    const checked = await ci(dir);
    expect(checked.code).toBe(0);
    expect(checked.stdout).toMatch(/passed: 15 compared, 0 regressions/);
  });

  it("adherence two points lower fails with exit 1, naming the agent and dimension in Markdown and JUnit", async () => {
    const dir = copyDemo();
    editJson(join(dir, "judge-fixtures.json"), (f) => {
      for (const v of f.verdicts) if (isDovAdherence(v)) lowerDovAdherence(v, 2);
    });
    const md = join(dir, "check.md");
    const xml = join(dir, "check.xml");
    const r = await ci(dir, "--markdown", md, "--junit", xml);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/Dov Marchetti\s+adherence\s+7\.54\s+5\.54\s+−2\.00\s+REGRESSION/);
    expect(readFileSync(md, "utf8")).toMatch(/\| Dov Marchetti \| ❌ 7\.54 → 5\.54 \(−2\.00\) \|/);
    const failures = findAll(parseXml(readFileSync(xml, "utf8")), "testcase").filter((t) =>
      t.children.some((c) => c.name === "failure"),
    );
    expect(failures.map((t) => `${t.attributes.classname} ${t.attributes.name}`)).toEqual([
      "dramaturg.persona.agent.dov adherence",
    ]);
  });

  it("with --trials 3, a drop in two trials but not the third is judge noise and passes", async () => {
    const dir = copyDemo();
    editJson(join(dir, "judge-fixtures.json"), (f) => {
      // Trial-specific entries are more specific than the general ones, so they win for trials 1 and 2.
      const noisy = f.verdicts
        .filter(isDovAdherence)
        .flatMap((v: { score: number; proposition_id: string }) =>
          [1, 2].map((trial) => {
            const copy = { ...v, trial };
            lowerDovAdherence(copy, 3);
            return copy;
          }),
        );
      f.verdicts.push(...noisy);
    });
    const r = await ci(dir, "--trials", "3", "--format", "json");
    const report = JSON.parse(r.stdout);
    const adherence = report.agents
      .find((a: { id: string }) => a.id === "dov")
      .dimensions.find((d: { dimension: string }) => d.dimension === "adherence");
    expect(adherence.delta).toBeCloseTo(-2, 2);
    expect(adherence.trials).toEqual([4.54, 4.54, 7.54]);
    expect(adherence.status).toBe("noise");
    expect(r.code).toBe(0);
  });

  it("an edited persona marks that agent's baseline stale, not a regression", async () => {
    const dir = copyDemo();
    editJson(join(dir, "transcript.json"), (t) => {
      t.agents.find((a: { id: string }) => a.id === "ines").persona += " She has taken up sea shanties.";
    });
    const md = join(dir, "check.md");
    const r = await ci(dir, "--markdown", md);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Inés Okafor\s+adherence\s+6\.79\s+6\.79\s+±0\.00\s+stale/);
    expect(r.stdout).toMatch(/stale: Inés Okafor adherence: the persona changed/);
    expect(readFileSync(md, "utf8")).toMatch(/\*\*Inés Okafor\*\*: the persona changed/);
  });
});

describe("bad baselines exit 2 with a clear message and write nothing", () => {
  it("a missing baselines folder", async () => {
    const dir = copyDemo();
    const md = join(dir, "check.md");
    const r = await ci(dir, "--baselines", join(dir, "nowhere"), "--markdown", md);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nowhere: baselines folder not found; create it with `dramaturg baseline`/);
    expect(existsSync(md)).toBe(false);
  });

  it("a baselines folder with no agent baseline", async () => {
    const dir = copyDemo();
    for (const a of ["dov", "ines", "priya", "wendell"]) rmSync(join(dir, "baselines", `${a}.json`));
    const r = await ci(dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/baselines: no agent baselines/);
  });

  it("a baseline in the wrong format names the file and the JSON path", async () => {
    const dir = copyDemo();
    editJson(join(dir, "baselines", "priya.json"), (b) => {
      b.trials[0].scores.fluency = 12;
    });
    const r = await ci(dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /baselines\/priya\.json:trials\[0\]\.scores\.fluency: .*expected a dramaturg\.baseline\/v1 file/,
    );
  });

  it("a file that is not JSON at all", async () => {
    const dir = copyDemo();
    writeFileSync(join(dir, "baselines", "dov.json"), "adherence: 7.5\n");
    const r = await ci(dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /baselines\/dov\.json:line 1, column 1: not valid JSON: expected a value, found "a"/,
    );
  });

  it("a baseline for an agent the transcript does not have", async () => {
    const dir = copyDemo();
    editJson(join(dir, "baselines", "dov.json"), (b) => {
      b.agent.id = "nobody";
    });
    const { renameSync } = await import("node:fs");
    renameSync(join(dir, "baselines", "dov.json"), join(dir, "baselines", "nobody.json"));
    const r = await ci(dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /baselines\/nobody\.json:agent\.id: the baseline is for agent "nobody", who is not in the transcript/,
    );
  });
});

describe("dramaturg schema baseline", () => {
  it("prints the JSON Schema of dramaturg.baseline/v1", async () => {
    const r = await cli(["schema", "baseline"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).properties.format.const).toBe("dramaturg.baseline/v1");
  });
});

describe("the committed demo baselines", () => {
  it("name the fixture judge by who gave the verdicts, not by the file's path", () => {
    const text = readFileSync(`${ROOT}examples/ensemble/baselines/dov.json`, "utf8");
    expect(JSON.parse(text).judge).toMatchObject({ provider: "fixtures", model: "hand-written" });
  });
});

describe("a fixtures file moved or renamed", () => {
  const made: string[] = [];
  afterEach(() => {
    // copyDemo() makes <tmp>/dramaturg-demo-XXXX/ensemble; the parent is the temp folder.
    for (const dir of made.splice(0)) rmSync(dirname(dir), { recursive: true, force: true });
  });

  it("is the same judge, so ci still compares against a baseline made with the old name", async () => {
    const dir = copyDemo();
    made.push(dir);
    rmSync(join(dir, "baselines"), { recursive: true });
    const config = join(dir, "dramaturg.yaml");
    const made1 = await cli([
      "baseline",
      "--config",
      config,
      "--db",
      "memory:",
      "--judge",
      `fixtures:${join(dir, "judge-fixtures.json")}`,
    ]);
    expect(made1.code).toBe(0);
    const moved = join(dir, "cassettes", "renamed.json");
    mkdirSync(dirname(moved));
    copyFileSync(join(dir, "judge-fixtures.json"), moved);
    const same = await ci(dir, "--judge", `fixtures:${moved}`);
    expect(same.stdout).not.toMatch(/judge changed/);
    expect(same.stdout).toMatch(/passed: 15 compared, 0 regressions/);
    expect(same.code).toBe(0);
    // It really compares: a drop in the moved file is a regression, not a stale baseline.
    editJson(moved, (f) => {
      for (const v of f.verdicts) if (isDovAdherence(v)) lowerDovAdherence(v, 2);
    });
    const lower = await ci(dir, "--judge", `fixtures:${moved}`);
    expect(lower.stdout).toMatch(/Dov Marchetti\s+adherence\s+7\.54\s+5\.54\s+−2\.00\s+REGRESSION/);
    expect(lower.code).toBe(1);
  });
});
