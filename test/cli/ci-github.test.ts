// `dramaturg ci --github`: the GitHub context is checked before anything is judged (exit 2, nothing written), and
// outside a pull request only the job summary is written. The comment itself: test/regression/github-action.test.ts.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { tempDir } from "../temp-dir.ts";
import { cli, DEMO, ROOT } from "./run-cli.ts";

afterEach(() => {
  vi.unstubAllEnvs();
});

const check = (dir: string) =>
  cli([
    "ci",
    ...DEMO,
    "--baselines",
    `${ROOT}examples/ensemble/baselines`,
    "--db",
    "memory://",
    "--markdown",
    join(dir, "check.md"),
    "--github",
  ]);

describe("ci --github", () => {
  it("a malformed event file is exit 2 naming the file and the field, and nothing is written", async () => {
    const dir = tempDir();
    const event = join(dir, "event.json");
    writeFileSync(event, JSON.stringify({ pull_request: { number: -3 } }));
    vi.stubEnv("GITHUB_REPOSITORY", "acme/agents");
    vi.stubEnv("GITHUB_EVENT_PATH", event);
    const r = await check(dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${event}:pull_request.number: expected a number greater than 0, got -3`);
    expect(existsSync(join(dir, "check.md"))).toBe(false);
  });

  it("without GITHUB_REPOSITORY (not on GitHub Actions) it is exit 2 saying so", async () => {
    const dir = tempDir();
    vi.stubEnv("GITHUB_REPOSITORY", "");
    const r = await check(dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/GITHUB_REPOSITORY: missing; expected owner\/name \(GitHub Actions sets it\)/);
  });

  it("on a push, the Markdown goes to the job summary and no comment is attempted", async () => {
    const dir = tempDir();
    const summary = join(dir, "summary.md");
    writeFileSync(summary, "");
    vi.stubEnv("GITHUB_REPOSITORY", "acme/agents");
    vi.stubEnv("GITHUB_EVENT_PATH", "");
    vi.stubEnv("GITHUB_STEP_SUMMARY", summary);
    vi.stubEnv("GITHUB_TOKEN", "ghs_never_used_here");
    const r = await check(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^dramaturg: not a pull request event: no comment posted$/m);
    expect(r.stderr).not.toContain("ghs_never_used_here");
    expect(readFileSync(summary, "utf8")).toBe(readFileSync(join(dir, "check.md"), "utf8"));
  });
});
