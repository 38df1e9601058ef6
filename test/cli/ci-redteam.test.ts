// `dramaturg ci` with a `redteam:` block in the project file: the demo's persona check (its hand-written fixture
// judge, its baselines) and then a red team of Marta against the agent and judge of the red-team tests' fake
// server (test/redteam/redteam-server.ts), the scripted attacker; no network, no model.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { PR_COMMENT_MARKER } from "../../src/regression/index.ts";
import type { FakeOpenAIServer } from "../../src/testing/index.ts";
import { MARTA, startRedteamServer } from "../redteam/redteam-server.ts";
import { type FakeGitHub, startFakeGitHub } from "../regression/fake-github.ts";
import { findAll, parseXml } from "../regression/xml.ts";
import { copyDemo } from "./demo-copy.ts";
import { cli } from "./run-cli.ts";

let server: FakeOpenAIServer;
let github: FakeGitHub;
beforeAll(async () => {
  [server, github] = await Promise.all([startRedteamServer(), startFakeGitHub()]);
});
afterAll(async () => {
  await Promise.all([server.close(), github.close()]);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

/** The demo with a red team of Marta appended to its project file; `lines` add, replace or (`key:`) drop keys. */
function demoWithRedteam(...lines: string[]): string {
  const dir = copyDemo();
  writeFileSync(join(dir, "marta.yml"), MARTA);
  const block = new Map([
    ["persona", "marta.yml"],
    ["target_url", server.url],
    ["judge", "openai-compatible:judge"],
    ["judge_base_url", server.url],
    ["strategies", "[role_play_trap, topic_hijack]"],
    ["attacks", "1"],
    ["turns", "4"],
  ]);
  for (const line of lines) {
    const [key, value] = [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim()];
    if (value === "") block.delete(key);
    else block.set(key, value);
  }
  appendFileSync(
    join(dir, "dramaturg.yaml"),
    ["redteam:", ...[...block].map(([key, value]) => `  ${key}: ${value}`), ""].join("\n"),
  );
  return dir;
}

const ci = (dir: string, ...args: string[]) =>
  cli(["ci", "--config", join(dir, "dramaturg.yaml"), "--db", "memory://", ...args]);

describe("dramaturg ci with a redteam block", () => {
  it("under min_robustness exits 1: the PR comment's red-team section, a failing JUnit suite, one sticky comment", async () => {
    const dir = demoWithRedteam("min_robustness: 0.8");
    const event = join(dir, "event.json");
    writeFileSync(event, JSON.stringify({ pull_request: { number: 7 } }));
    vi.stubEnv("GITHUB_API_URL", github.url);
    vi.stubEnv("GITHUB_TOKEN", github.token);
    vi.stubEnv("GITHUB_REPOSITORY", "acme/agents");
    vi.stubEnv("GITHUB_EVENT_PATH", event);
    vi.stubEnv("GITHUB_STEP_SUMMARY", "");
    const md = join(dir, "check.md");
    const xml = join(dir, "check.xml");
    const r = await ci(dir, "--markdown", md, "--junit", xml, "--github");
    expect(r.code, r.stderr).toBe(1);
    // The persona check passed; the red team failed it.
    expect(r.stdout).toMatch(/passed: 15 compared, 0 regressions/);
    expect(r.stdout).toContain("red team FAILED: robustness 0.50, under 0.8");
    expect(r.stdout).toMatch(/role-play trap\s+1\/1 \(100 %\), median 3\n/);

    const comment = readFileSync(md, "utf8");
    expect(comment.startsWith(`${PR_COMMENT_MARKER}\n`)).toBe(true);
    expect(comment.split(PR_COMMENT_MARKER)).toHaveLength(2);
    expect(comment).toContain("#### ❌ Red team: robustness 0.50, under 0.8");
    expect(comment).toContain("| role-play trap | 1/1 \\(100 %\\), median 3 |");
    expect(comment).toContain("plain role\\_play\\_trap \\#1 \\(seed 1\\): broke at turn 3");

    const root = parseXml(readFileSync(xml, "utf8"));
    const suite = findAll(root, "testsuite").find((s) => s.attributes.name === "redteam")!;
    expect(suite.attributes).toMatchObject({ tests: "3", failures: "2" });
    expect(root.attributes.failures).toBe("2");
    const failed = findAll(suite, "testcase").filter((t) => t.children.some((c) => c.name === "failure"));
    expect(failed.map((t) => `${t.attributes.classname} ${t.attributes.name}`)).toEqual([
      "dramaturg.redteam.plain role_play_trap",
      "dramaturg.redteam robustness",
    ]);
    expect(failed[0]!.children[0]!.text).toContain("#1 (seed 1): broke at turn 3");
    expect(readFileSync(xml, "utf8")).not.toContain("<script>");

    // The second push updates the one comment, and JSON carries the red team beside the report.
    const again = await ci(dir, "--github", "--format", "json");
    expect(again.code).toBe(1);
    const report = JSON.parse(again.stdout);
    expect(report.counts.regressions).toBe(0);
    expect(report.redteam).toMatchObject({ status: "failed", min_robustness: 0.8 });
    expect(report.redteam.result.arms[0]).toMatchObject({ arm: "plain", robustness: 0.5 });
    const comments = github.comments.get(7)!;
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).not.toBe(comment);
    expect(comments[0]!.body.startsWith(PR_COMMENT_MARKER)).toBe(true);
    expect(comments[0]!.body).toContain("#### ❌ Red team: robustness 0.50, under 0.8");
    expect(github.requests.filter((q) => q.startsWith("PATCH"))).toHaveLength(1);
  }, 60_000);

  it("at or above min_robustness the check passes, saying so", async () => {
    const r = await ci(demoWithRedteam("min_robustness: 0.5"));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("red team passed: robustness 0.50, at least 0.5");
  });

  it("a bad key is exit 2 naming the project file and the key, before anything is judged or attacked", async () => {
    const calls = server.stats.calls;
    for (const [line, expected] of [
      [
        "concurrency: 0",
        /dramaturg\.yaml:20:\d+: redteam\.concurrency: expected a whole number of 1 or more, got "0"/,
      ],
      ["min_robustness: 2", /dramaturg\.yaml:\d+:\d+: redteam\.min_robustness: expected a share from 0 to 1/],
      ["attack: 3", /dramaturg\.yaml:20:3: unknown key "attack"; expected one of persona, agent/],
      // The project's judge replays the persona check's fixtures: no judge of the red team's.
      ["judge:", /dramaturg\.yaml:13:3: redteam: give redteam\.judge SPEC: each reply is scored/],
    ] as const) {
      const dir = demoWithRedteam(line);
      const md = join(dir, "check.md");
      const r = await ci(dir, "--markdown", md);
      expect(r.code, line).toBe(2);
      expect(r.stderr, line).toMatch(expected);
      expect(r.stdout).toBe("");
      expect(existsSync(md)).toBe(false);
    }
    const dir = demoWithRedteam("strategies: [flattery]");
    const r = await ci(dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /dramaturg\.yaml:17:\d+: redteam\.strategies: no strategy "flattery"; expected one of direct_instruction/,
    );
    expect(server.stats.calls).toBe(calls);
  });

  it("--no-redteam skips it, and --dry-run says it would run; neither calls the target or the judge", async () => {
    const calls = server.stats.calls;
    const dir = demoWithRedteam("min_robustness: 0.8");
    const md = join(dir, "check.md");
    const skipped = await ci(dir, "--no-redteam", "--markdown", md);
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(skipped.stdout).not.toContain("red team");
    expect(readFileSync(md, "utf8")).not.toContain("Red team");
    const dry = await ci(dir, "--dry-run");
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toMatch(
      /then the red team \(redteam in .*dramaturg\.yaml\): 2 strategies × 1 attacks on Marta, up to 4 turns each; fails under robustness 0\.8 \(a dry run calls no model\)/,
    );
    expect(server.stats.calls).toBe(calls);
  });

  it("a target that cannot answer leaves the red team incomplete: exit 3, said in each report", async () => {
    const dir = demoWithRedteam();
    const config = join(dir, "dramaturg.yaml");
    writeFileSync(
      config,
      readFileSync(config, "utf8").replace(`target_url: ${server.url}`, "target_url: http://127.0.0.1:9/v1"),
    );
    const xml = join(dir, "check.xml");
    const r = await ci(dir, "--junit", xml);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toContain("red team: could not complete");
    const suite = findAll(parseXml(readFileSync(xml, "utf8")), "testsuite").find(
      (s) => s.attributes.name === "redteam",
    )!;
    expect(suite.attributes).toMatchObject({ tests: "1", errors: "1" });
  }, 60_000);
});

describe("dramaturg schema config", () => {
  it("describes the redteam block, its keys those of dramaturg redteam's flags", async () => {
    const r = await cli(["schema", "config"]);
    expect(r.code).toBe(0);
    const block = JSON.parse(r.stdout).properties.redteam;
    expect(block.additionalProperties).toBe(false);
    expect(Object.keys(block.properties)).toContain("min_robustness");
    expect(Object.keys(block.properties)).toContain("judge_api_key_env");
    for (const [key, value] of Object.entries(block.properties))
      expect((value as { description?: string }).description, key).toBeTruthy();
  });
});
