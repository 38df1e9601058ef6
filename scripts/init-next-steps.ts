// After `dramaturg init`: runs every command its "Next:" lines suggest, then the `run:` steps of the CI workflow
// it wrote, as a user and GitHub would, and fails on the first that does not pass. test/cli/init.test.ts runs it
// on src/ (`node bin/dramaturg.js`); .ci/package-check.sh on the installed tarball with
// `node --import tsx scripts/init-next-steps.ts FOLDER INIT_OUTPUT_FILE` (init ran in FOLDER, its stdout in the file).
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";

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
    const child = spawn("bash", ["-e", "-c", script], { cwd, env: { ...process.env, ...env } });
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
  env?: Record<string, string>;
}

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
      // Secrets are absent, as on a fork's pull request: the fixture judge needs none.
      const env = Object.fromEntries(
        Object.entries(step.env ?? {}).map(([k, v]) => [k, String(v).includes("${{") ? "" : String(v)]),
      );
      writeFileSync(outputFile, "");
      const r = await bash(script, project, { ...env, GITHUB_OUTPUT: outputFile });
      if (r.code !== 0) throw new Error(`workflow step "${name}" exited ${r.code}:\n${r.output}`);
      if (step.id)
        outputs[step.id] = Object.fromEntries(
          readFileSync(outputFile, "utf8")
            .split("\n")
            .filter((l) => l.includes("="))
            .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
        );
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
