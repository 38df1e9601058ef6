// The shell commands written in README.md and docs/*.md, and where each runs. Every ```sh block follows a
// marker naming its context: `<!-- run: clone -->` (a clone's root after `npm ci`), `<!-- run: installed -->`
// (a fresh folder where the packed tarball is installed) or `<!-- run: no (why) -->`. `; judge: SPEC` runs
// a block that needs an API key with that judge instead; `; exit: N` expects that exit code.
// test/docs/commands.test.ts runs the clone blocks; .ci/package-check.sh runs the installed ones with
// `node --import tsx scripts/doc-commands.ts installed APP_FOLDER`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export type DocContext = "clone" | "installed" | "no";

export interface DocBlock {
  /** The markdown file, relative to the repository root. */
  file: string;
  /** Line of the opening fence (1-based). */
  line: number;
  context: DocContext;
  /** Why a `no` block is not run. */
  reason?: string;
  /** The judge that replaces a model judge (`--judge openai:…` and the like) when the block runs. */
  judge?: string;
  /** The exit code the block is expected to end with (0 unless the marker says otherwise). */
  exit: number;
  /** The commands as written. */
  text: string;
}

export const REPO = resolve(fileURLToPath(new URL("..", import.meta.url)));

const SHELL_FENCE = /^```(sh|bash|shell|console)\s*$/;
const MARKER = /^<!--\s*run:\s*(.*?)\s*-->$/;
// A fence of another language (or none) whose first command is one of ours would escape the check.
const COMMAND_LINE = /^(npx|npm|node|dramaturg|curl|export|cd|git|cp)\s/;

/** The markdown files whose commands are checked: the README and every guide. */
export function documentFiles(root = REPO): string[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`);
  return ["README.md", ...docs];
}

/** Each file's shell blocks with their markers, and one message per block that cannot be placed. */
export function documentedBlocks(root = REPO): { blocks: DocBlock[]; problems: string[] } {
  const blocks: DocBlock[] = [];
  const problems: string[] = [];
  for (const file of documentFiles(root)) {
    const lines = readFileSync(join(root, file), "utf8").split("\n");
    for (let i = 0; i < lines.length; i++) {
      const fence = /^```(\S*)\s*$/.exec(lines[i]!);
      if (!fence) continue;
      const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
      if (end < 0) {
        problems.push(`${file}:${i + 1}: a fence that is never closed`);
        break;
      }
      const open = i;
      const body = lines.slice(open + 1, end);
      const at = `${file}:${open + 1}`;
      i = end;
      if (!SHELL_FENCE.test(lines[open]!)) {
        const first = body.find((l) => l.trim() && !l.trim().startsWith("#"))?.trim() ?? "";
        if (fence[1] === "" && COMMAND_LINE.test(first))
          problems.push(
            `${at}: shell commands in a fence without a language; expected \`\`\`sh and a run marker`,
          );
        continue;
      }
      let k = open - 1;
      while (k >= 0 && lines[k]!.trim() === "") k--;
      const marker = k >= 0 ? MARKER.exec(lines[k]!.trim()) : null;
      if (!marker) {
        problems.push(
          `${at}: a shell block without a run marker; expected <!-- run: clone -->, <!-- run: installed --> or <!-- run: no (why) --> on the line before it`,
        );
        continue;
      }
      const parsed = parseMarker(marker[1]!);
      if (typeof parsed === "string") problems.push(`${at}: ${parsed}`);
      else blocks.push({ file, line: open + 1, ...parsed, text: body.join("\n") });
    }
  }
  return { blocks, problems };
}

function parseMarker(spec: string): Omit<DocBlock, "file" | "line" | "text"> | string {
  const no = /^no\s*\((.+)\)$/.exec(spec);
  if (no) return { context: "no", reason: no[1]!, exit: 0 };
  if (/^no\b/.test(spec)) return `"${spec}": a block that is not run says why, as <!-- run: no (why) -->`;
  const [context, ...options] = spec.split(";").map((s) => s.trim());
  if (context !== "clone" && context !== "installed")
    return `unknown run context "${context}"; expected clone, installed or no (why)`;
  const block: Omit<DocBlock, "file" | "line" | "text"> = { context, exit: 0 };
  for (const option of options) {
    const [key, ...rest] = option.split(":");
    const value = rest.join(":").trim();
    if (key === "judge" && value) block.judge = value;
    else if (key === "exit" && /^\d+$/.test(value)) block.exit = Number(value);
    else return `unknown run option "${option}"; expected judge: SPEC or exit: N`;
  }
  return block;
}

/**
 * The script a block runs: as written, except that with `judge:` every model judge is replaced by that
 * judge, its base URL dropped, and the lines that export an API key left out (nothing here has a key).
 */
export function runnableScript(block: DocBlock): string {
  if (!block.judge) return block.text;
  return block.text
    .split("\n")
    .filter((l) => !/^\s*export\s+\w*API_KEY=/.test(l))
    .map((l) =>
      l
        .replace(/--judge (?!fixtures:|none\b)\S+/g, `--judge ${block.judge}`)
        .replace(/\s--judge-base-url \S+/g, ""),
    )
    .join("\n");
}

export interface BlockRun {
  block: DocBlock;
  code: number | null;
  output: string;
}

/** Runs blocks in order with bash in `cwd` (stopping at the first failure), each under `prelude`. */
export function runBlocks(
  blocks: DocBlock[],
  { cwd, prelude = "", env = {}, timeoutMs = 120_000 }: RunOptions,
): BlockRun[] {
  const runs: BlockRun[] = [];
  for (const block of blocks) {
    const script = `set -eo pipefail\n${prelude}\n${runnableScript(block)}\n`;
    const child = spawnSync("bash", ["-c", script], {
      cwd,
      env: { ...process.env, ...env },
      encoding: "utf8",
      timeout: timeoutMs,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output = `${child.stdout ?? ""}${child.stderr ?? ""}${child.error ? `\n${child.error.message}` : ""}`;
    runs.push({ block, code: child.status, output });
    if (child.status !== block.exit) break;
  }
  return runs;
}

interface RunOptions {
  cwd: string;
  prelude?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** One line on a block that did not end as expected, with the end of its output. */
export function describeFailure(run: BlockRun): string {
  const tail = run.output.trim().split("\n").slice(-15).join("\n");
  return `${run.block.file}:${run.block.line}: exited ${run.code}, expected ${run.block.exit}\n${run.block.text}\n--- output (end)\n${tail}`;
}

/**
 * The installed context: each file's installed blocks, in order, in a new folder of `app` (a project
 * where the tarball is installed) that shares its node_modules, as a user following that page would.
 */
function runInstalled(app: string): number {
  const { blocks, problems } = documentedBlocks();
  if (problems.length > 0) {
    for (const p of problems) console.error(`doc-commands: ${p}`);
    return 2;
  }
  const installed = blocks.filter((b) => b.context === "installed");
  for (const file of [...new Set(installed.map((b) => b.file))]) {
    const dir = mkdtempSync(join(resolve(app), `docs-${basename(file, ".md")}-`));
    // npx finds the command in the nearest folder with a package.json or node_modules: this one.
    symlinkSync(resolve(app, "node_modules"), join(dir, "node_modules"), "dir");
    const runs = runBlocks(
      installed.filter((b) => b.file === file),
      { cwd: dir },
    );
    const failed = runs.find((r) => r.code !== r.block.exit);
    if (failed) {
      console.error(`doc-commands: ${describeFailure(failed)}`);
      return 1;
    }
    console.log(`  ${file}: ${runs.length} block(s) ran in ${relative(resolve(app), dir)}`);
  }
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [context, app] = process.argv.slice(2);
  if (context !== "installed" || !app) {
    console.error("usage: node --import tsx scripts/doc-commands.ts installed APP_FOLDER");
    process.exit(2);
  }
  process.exit(runInstalled(app));
}
