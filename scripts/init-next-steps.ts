// After `dramaturg init`: runs every command its "Next:" lines suggest, then the `run:` steps of the CI workflow
// it wrote, as a user and GitHub would, and fails on the first that does not pass. The workflow's Dramaturg
// Action step runs the steps of this repository's action.yml (runAction), as GitHub runs a composite action. test/cli/init.test.ts runs it
// on src/ (`node bin/dramaturg.js`); .ci/package-check.sh on the installed tarball with
// `node --import tsx scripts/init-next-steps.ts FOLDER INIT_OUTPUT_FILE` (init ran in FOLDER, its stdout in the file).
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";

/** Dramaturg's GitHub Action, which the generated workflow uses. */
export const ACTION_FILE = fileURLToPath(new URL("../action.yml", import.meta.url));

/**
 * A step that uses Dramaturg's Action: the installed package's (`./node_modules/dramaturg`, what init writes),
 * `OWNER/dramaturg@REF`, or `./` in Dramaturg's own repository.
 */
const DRAMATURG_ACTION = /^([\w.-]+\/dramaturg@[\w.-]+|\.\/?|\.\/node_modules\/dramaturg)$/;

export interface WalkOptions {
  /** The folder init ran in (the Next: lines `cd` from there). */
  cwd: string;
  /** What init printed. */
  initOutput: string;
  /** Shell text that stands for `npx dramaturg` (the default runs the installed package and never downloads it). */
  dramaturg?: string;
  /** Called with one line per command or step, as it passes. */
  log?: (line: string) => void;
}

/** The project folder init reports ("Created a Dramaturg project in DIR:"), absolute. */
export function projectOf({ cwd, initOutput }: Pick<WalkOptions, "cwd" | "initOutput">): string {
  const where = /^Created a Dramaturg project in (.+):$/m.exec(initOutput)?.[1];
  if (!where) throw new Error(`init printed no "Created a Dramaturg project in DIR:" line:\n${initOutput}`);
  return resolve(cwd, where);
}

/** The commands of init's "Next:" lines, without their comments. */
export function nextCommands(initOutput: string): string[] {
  const after = initOutput.split(/^Next:$/m)[1];
  if (after === undefined) throw new Error(`init printed no "Next:" lines:\n${initOutput}`);
  const block = after.replace(/^\n/, "").split(/\n\s*\n/)[0]!;
  return block
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter(Boolean);
}

interface Run {
  code: number | null;
  output: string;
}

function bash(script: string, cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done, fail) => {
    // As GitHub runs a `shell: bash` step: bash --noprofile --norc -eo pipefail.
    const child = spawn("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", script], {
      cwd,
      env: { ...process.env, ...env },
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", fail);
    child.on("close", (code) => done({ code, output }));
  });
}

/**
 * `serve` runs until stopped: started on any free port, it passes once it says where it serves and that address
 * answers the dashboard; then its process group is stopped (npx does not forward a signal to its child).
 */
function serveBriefly(command: string, cwd: string, timeoutMs = 30_000): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn("bash", ["-c", `${command} --port 0`], { cwd, detached: true });
    let output = "";
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        // Already gone: its exit is reported below.
      }
      child.once("close", () => (error ? fail(error) : done(output)));
      if (child.exitCode !== null || child.signalCode !== null) error ? fail(error) : done(output);
    };
    const timer = setTimeout(
      () => finish(new Error(`no "serving http://…" within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const onData = (d: Buffer) => {
      output += d;
      const url = /serving (http:\/\/\S+?)[\s;(]/.exec(output)?.[1];
      if (!url || settled) return;
      fetch(url).then(
        (r) => finish(r.ok ? undefined : new Error(`GET ${url} answered ${r.status}:\n${output}`)),
        (e: Error) => finish(new Error(`GET ${url} failed (${e.message}):\n${output}`)),
      );
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("close", (code) => {
      if (!settled) finish(new Error(`serve exited ${code} before serving:\n${output}`));
    });
  });
}

/** The two forms of condition the generated workflow uses; anything else is for this script to learn. */
function conditionHolds(
  condition: string,
  project: string,
  outputs: Record<string, Record<string, string>>,
): boolean {
  const terms = condition.split("&&").map((t) => t.trim());
  return terms.every((term) => {
    if (term === "always()") return true;
    const file = /^hashFiles\('([^']+)'\) != ''$/.exec(term);
    if (file) return existsSync(join(project, file[1]!));
    const output = /^steps\.(\w+)\.outputs\.(\w+) != '([^']*)'$/.exec(term);
    if (output) return outputs[output[1]!]?.[output[2]!] !== output[3];
    throw new Error(`the workflow has a condition this walk-through does not know: ${term}`);
  });
}

interface WorkflowStep {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  "working-directory"?: string;
  env?: Record<string, string>;
  with?: Record<string, string | number | boolean>;
}

interface ActionFile {
  inputs: Record<string, { default?: string }>;
  outputs?: Record<string, { value: string }>;
  runs: { using: string; steps: WorkflowStep[] };
}

/** Reads a step's `$GITHUB_OUTPUT` file (key=value lines). */
function stepOutputs(file: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.includes("="))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
}

export interface ActionRun {
  /** The action's outputs (`exit-code`). */
  outputs: Record<string, string>;
  /** The step that failed, if one did: GitHub marks the workflow's step failed. */
  failed?: { step: string; code: number | null; output: string };
  /** What each step printed, by name: the log of the run. */
  logs: Record<string, string>;
}

/**
 * Runs a composite action's steps as GitHub does: `${{ inputs.* }}` from `with` or the defaults,
 * `${{ github.token }}` from GITHUB_TOKEN, `${{ steps.*.outputs.* }}` from earlier steps; `run:` steps in
 * bash in the working directory; an upload-artifact step checks that what it would upload exists. Any other
 * expression, shell or action is an error, for this walk to learn.
 */
/** `node_modules/dramaturg/action.yml` as Node would find the package from `folder`, if it is there. */
function installedAction(folder: string): string | undefined {
  for (let at = resolve(folder); ; at = dirname(at)) {
    const file = join(at, "node_modules", "dramaturg", "action.yml");
    if (existsSync(file)) return file;
    if (dirname(at) === at) return undefined;
  }
}

export async function runAction({
  actionFile = ACTION_FILE,
  project,
  inputs = {},
  env = {},
  dramaturg = "npx --no-install dramaturg",
  log = () => {},
}: {
  actionFile?: string;
  /** The workspace (GITHUB_WORKSPACE): where the workflow's steps run. */
  project: string;
  /** The step's `with:`. */
  inputs?: Record<string, string | number | boolean>;
  /** The step's `env:` and the runner's GITHUB_* variables. */
  env?: Record<string, string>;
  dramaturg?: string;
  log?: (line: string) => void;
}): Promise<ActionRun> {
  const action = parseYaml(readFileSync(actionFile, "utf8")) as ActionFile;
  if (action.runs.using !== "composite") throw new Error(`${actionFile}: expected a composite action`);
  for (const name of Object.keys(inputs))
    if (!(name in action.inputs))
      throw new Error(`the workflow passes "${name}", which ${actionFile} does not declare`);
  const outputs: Record<string, Record<string, string>> = {};
  const expression = (text: string): string =>
    text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
      const input = /^inputs\.([\w-]+)$/.exec(expr);
      if (input) {
        const declared = action.inputs[input[1]!];
        if (!declared) throw new Error(`${actionFile} uses inputs.${input[1]}, which it does not declare`);
        return input[1]! in inputs ? String(inputs[input[1]!]) : expression(declared.default ?? "");
      }
      if (expr === "github.token") return env.GITHUB_TOKEN ?? "";
      const output = /^steps\.(\w+)\.outputs\.(\w+)$/.exec(expr);
      if (output) return outputs[output[1]!]?.[output[2]!] ?? "";
      throw new Error(`${actionFile} has an expression this walk-through does not know: \${{ ${expr} }}`);
    });
  const outputFile = join(project, ".github-output");
  const logs: Record<string, string> = {};
  for (const step of action.runs.steps) {
    const name = step.name ?? step.uses ?? "?";
    if (step.if !== undefined && !conditionHolds(expression(step.if), project, outputs)) {
      log(`ok  action step "${name}": skipped (${step.if})`);
      continue;
    }
    if (step.uses) {
      if (!step.uses.startsWith("actions/upload-artifact@"))
        throw new Error(`${actionFile} uses ${step.uses}, which this walk-through does not know`);
      const path = expression(String(step.with?.path ?? ""));
      if (!existsSync(join(project, path)))
        throw new Error(`action step "${name}" would upload nothing: no ${path}`);
      log(`--  action step "${name}": ${step.uses} would upload ${path}`);
      continue;
    }
    if (step.shell !== "bash") throw new Error(`action step "${name}": a run step needs shell: bash`);
    const stepEnv = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([k, v]) => [k, expression(String(v))]),
    );
    writeFileSync(outputFile, "");
    const cwd = join(project, expression(step["working-directory"] ?? "."));
    const script = expression(step.run!)
      .replaceAll("npx --no-install dramaturg", dramaturg)
      .replaceAll("npx dramaturg", dramaturg);
    const r = await bash(script, cwd, {
      ...env,
      ...stepEnv,
      GITHUB_OUTPUT: outputFile,
      GITHUB_WORKSPACE: project,
    });
    logs[name] = r.output;
    if (step.id) outputs[step.id] = stepOutputs(outputFile);
    if (r.code !== 0) {
      log(`x   action step "${name}" exited ${r.code}`);
      return {
        outputs: actionOutputs(action, expression),
        failed: { step: name, code: r.code, output: r.output },
        logs,
      };
    }
    log(`ok  action step "${name}"${step.id ? ` ${JSON.stringify(outputs[step.id])}` : ""}`);
  }
  return { outputs: actionOutputs(action, expression), logs };
}

const actionOutputs = (action: ActionFile, expression: (text: string) => string) =>
  Object.fromEntries(Object.entries(action.outputs ?? {}).map(([k, o]) => [k, expression(o.value)]));

/** A step's env with its `${{ secrets.* }}` empty, as on a fork's pull request: the fixture judge needs none. */
const withoutSecrets = (env: Record<string, string> = {}) =>
  Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v).includes("${{") ? "" : String(v)]));

/** Runs every Next: command, then the workflow's steps; throws naming the first that fails. */
export async function walkInitProject({
  cwd,
  initOutput,
  dramaturg = "npx --no-install dramaturg",
  log = () => {},
}: WalkOptions): Promise<void> {
  const project = projectOf({ cwd, initOutput });
  const asInstalled = (text: string) => text.replaceAll("npx dramaturg", dramaturg);

  for (const command of nextCommands(initOutput)) {
    if (/\bdramaturg serve\b/.test(command)) {
      await serveBriefly(asInstalled(command), cwd);
      log(`ok  ${command}  (served the dashboard, then stopped)`);
      continue;
    }
    const r = await bash(asInstalled(command), cwd);
    if (r.code !== 0) throw new Error(`Next: command "${command}" exited ${r.code}:\n${r.output}`);
    log(`ok  ${command}`);
  }

  const workflowFile = join(project, ".github/workflows/persona-check.yml");
  const workflow = parseYaml(readFileSync(workflowFile, "utf8")) as {
    jobs: Record<string, { steps: WorkflowStep[] }>;
  };
  const outputs: Record<string, Record<string, string>> = {};
  const outputFile = join(project, ".github-output");
  for (const job of Object.values(workflow.jobs))
    for (const step of job.steps) {
      const name = step.name ?? step.uses ?? step.run ?? "?";
      if (step.if !== undefined && !conditionHolds(step.if, project, outputs)) {
        // A skipped step is a pass only when it reports a failure; the others (uploads, the comment) must happen.
        if (step.uses) throw new Error(`workflow step "${name}" would be skipped (${step.if})`);
        log(`ok  workflow step "${name}": skipped, as it should be (${step.if})`);
        continue;
      }
      if (step.uses && DRAMATURG_ACTION.test(step.uses)) {
        // The runner's context, on a push (no pull request: the comment is skipped, the summary written).
        const summary = join(project, ".github-step-summary.md");
        writeFileSync(summary, "");
        // The installed package's action.yml when the step names it and the project has it (the tarball's).
        const installed = step.uses === "./node_modules/dramaturg" ? installedAction(project) : undefined;
        if (installed) log(`    the installed package's ${installed}`);
        const run = await runAction({
          ...(installed ? { actionFile: installed } : {}),
          project,
          inputs: step.with ?? {},
          env: {
            ...withoutSecrets(step.env),
            GITHUB_REPOSITORY: "example/project",
            GITHUB_STEP_SUMMARY: summary,
          },
          dramaturg,
          log: (line) => log(`    ${line}`),
        });
        if (run.failed)
          throw new Error(
            `workflow step "${name}": the action's step "${run.failed.step}" exited ${run.failed.code}:\n${run.failed.output}`,
          );
        if (!readFileSync(summary, "utf8").includes("dramaturg-persona-check"))
          throw new Error(`workflow step "${name}" wrote no job summary`);
        log(`ok  workflow step "${name}": ${step.uses} ${JSON.stringify(run.outputs)}`);
        continue;
      }
      if (step.uses) {
        log(`--  workflow step "${name}": ${step.uses}, GitHub's own`);
        continue;
      }
      if (step.run?.trim() === "npm ci") {
        log(`--  workflow step "${name}": npm ci, dramaturg is installed here already`);
        continue;
      }
      const script = asInstalled(step.run!).replace(
        /\$\{\{\s*steps\.(\w+)\.outputs\.(\w+)\s*\}\}/g,
        (_, id: string, key: string) => outputs[id]?.[key] ?? "",
      );
      writeFileSync(outputFile, "");
      const r = await bash(script, project, { ...withoutSecrets(step.env), GITHUB_OUTPUT: outputFile });
      if (r.code !== 0) throw new Error(`workflow step "${name}" exited ${r.code}:\n${r.output}`);
      if (step.id) outputs[step.id] = stepOutputs(outputFile);
      log(`ok  workflow step "${name}"${step.id ? ` ${JSON.stringify(outputs[step.id])}` : ""}`);
    }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const [folder, outputFile, dramaturg] = process.argv.slice(2);
  if (!folder || !outputFile) {
    process.stderr.write(
      "usage: node --import tsx scripts/init-next-steps.ts FOLDER INIT_OUTPUT_FILE [DRAMATURG]\n",
    );
    process.exit(2);
  }
  await walkInitProject({
    cwd: resolve(folder),
    initOutput: readFileSync(outputFile, "utf8"),
    dramaturg,
    log: (line) => process.stdout.write(`  ${line}\n`),
  });
}
