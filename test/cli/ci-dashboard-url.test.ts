// `dramaturg ci --dashboard-url URL` (or DRAMATURG_DASHBOARD_URL, or ci.dashboard_url in dramaturg.yaml):
// the pull-request comment and the HTML report link the check's runs, regressed dimensions and fallen
// propositions to the dashboard; the URL must be http(s), else exit 2 naming where it was written.
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useTempDir } from "../temp-dir.ts";
import { cli, DEMO, ROOT } from "./run-cli.ts";

const dir = useTempDir("dramaturg-ci-dashboard-");

afterEach(() => {
  vi.unstubAllEnvs();
});

/** The demo's baselines with Inés's adherence far above what the fixtures give: it regresses. */
function regressingBaselines(): string {
  const baselines = join(dir(), "baselines");
  cpSync(`${ROOT}examples/ensemble/baselines`, baselines, { recursive: true });
  const file = readdirSync(baselines).find((f) => f.startsWith("ines"))!;
  const baseline = JSON.parse(readFileSync(join(baselines, file), "utf8"));
  baseline.dimensions.adherence.score = 9;
  for (const p of baseline.dimensions.adherence.propositions) p.score = 9;
  writeFileSync(join(baselines, file), JSON.stringify(baseline));
  return baselines;
}

async function check(extra: string[], name: string) {
  const md = join(dir(), `${name}.md`);
  const html = join(dir(), `${name}.html`);
  const db = join(dir(), `${name}-store`);
  const r = await cli([
    "ci",
    ...DEMO,
    "--baselines",
    regressingBaselines(),
    "--db",
    db,
    "--markdown",
    md,
    "--html",
    html,
    ...extra,
  ]);
  return { r, md: () => readFileSync(md, "utf8"), html: () => readFileSync(html, "utf8"), db };
}

describe("ci --dashboard-url", () => {
  it("links the regressed run's dimension and fallen propositions to the dashboard, in both reports", async () => {
    const { r, md, html, db } = await check(["--dashboard-url", "https://dash.example.com/"], "flag");
    expect(r.code, r.stderr).toBe(1);
    const runs = await cli(["runs", "--db", db, "--agent", "ines", "--format", "json"]);
    const run = (JSON.parse(runs.stdout).runs ?? JSON.parse(runs.stdout))[0].id as string;
    const verdicts = `https://dash.example.com/runs/${run}?dimension=adherence#verdicts-adherence`;
    const traits = `https://dash.example.com/runs/${run}?p=adherence%2Fpersona-traits#p-adherence-persona-traits`;
    expect(md()).toContain(`**Inés Okafor · [adherence](${verdicts})**`);
    expect(md()).toContain(`[\`persona-traits\`](${traits})`);
    expect(md()).toContain(
      `Inés Okafor · run [\`${run.slice(0, 8)}\`](https://dash.example.com/runs/${run})`,
    );
    const report = html();
    expect(report).toContain(`<a href="${verdicts}">adherence</a>`);
    expect(report).toContain(`<a href="${traits}"><code>persona-traits</code></a>`);
    expect(report).toContain(
      `<span class="run-id">run <a href="https://dash.example.com/runs/${run}">${run.slice(0, 8)}</a></span>`,
    );
  });

  it("takes the URL from DRAMATURG_DASHBOARD_URL too", async () => {
    vi.stubEnv("DRAMATURG_DASHBOARD_URL", "http://10.0.0.5:4477");
    const { r, md } = await check([], "env");
    expect(r.code, r.stderr).toBe(1);
    expect(md()).toMatch(
      /\[adherence\]\(http:\/\/10\.0\.0\.5:4477\/runs\/[0-9a-f-]{36}\?dimension=adherence/,
    );
  });

  it("without it, the reports link nowhere outside themselves", async () => {
    const { r, md, html } = await check([], "none");
    expect(r.code, r.stderr).toBe(1);
    expect(md()).not.toMatch(/\]\(/);
    expect(html()).not.toMatch(/href="https?:/);
  });

  it("refuses a URL that is not http(s), naming the flag, before judging anything", async () => {
    const r = await cli(["ci", ...DEMO, "--db", "memory://", "--dashboard-url", "javascript:alert(1)"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--dashboard-url/);
    expect(r.stderr).toMatch(/http\(s\) URL/);
  });

  it("refuses a bad ci.dashboard_url in the project file, naming the file and its line", async () => {
    const project = join(dir(), "project");
    cpSync(`${ROOT}examples/ensemble`, project, { recursive: true });
    const file = join(project, "dramaturg.yaml");
    writeFileSync(file, `${readFileSync(file, "utf8")}\nci:\n  dashboard_url: ftp://dash.example.com\n`);
    const r = await cli(["ci", "--db", "memory://"], { cwd: project });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/dramaturg\.yaml/);
    expect(r.stderr).toMatch(/dashboard_url|http\(s\) URL/);
  });
});
