// `dramaturg init [DIR]`: scaffolds a project that works offline at once: project file and its JSON Schema,
// the built-in proposition sets, an example transcript with hand-written verdicts, its baselines, a CI workflow.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { InputError, PERSONA_DIMENSIONS } from "../../core/index.ts";
import { builtinPropositionFilePath } from "../../propositions/index.ts";
import { ENVIRONMENT_BASELINE_FILE } from "../../regression/index.ts";
import { writeBaselineFiles } from "../baseline-files.ts";
import { setExitCode } from "../exit-code.ts";
import { examples } from "../help-examples.ts";
import { measure, setupEvaluation } from "../persona-evaluation.ts";
import { projectFileJsonSchema } from "../settings.ts";

const SCAFFOLD = fileURLToPath(new URL("../scaffold/", import.meta.url));

/** The store folder, kept out of version control. */
const IGNORED = ".dramaturg/";

export function registerInitCommand(program: Command): void {
  program
    .command("init")
    .description(
      "create a Dramaturg project: dramaturg.yaml, propositions, an example and its baselines, a CI workflow",
    )
    .argument("[dir]", "folder to create the project in (default: the current folder)")
    .option("--force", "overwrite files that already exist")
    .addHelpText(
      "after",
      examples(
        "dramaturg init",
        "dramaturg init persona-checks && cd persona-checks && dramaturg eval",
        "dramaturg init --force",
      ),
    )
    .action(async (dir: string | undefined, flags: { force?: boolean }) =>
      setExitCode(await initCommand(dir, flags)),
    );
}

/** Every file init writes, relative to the project folder, with its content. */
export function scaffoldFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const read = (name: string) => readFileSync(join(SCAFFOLD, name), "utf8");
  files.set("dramaturg.yaml", read("dramaturg.yaml"));
  files.set("schemas/dramaturg.schema.json", `${JSON.stringify(projectFileJsonSchema(), null, 2)}\n`);
  for (const dimension of PERSONA_DIMENSIONS)
    files.set(
      `propositions/${dimension}/_default.yaml`,
      readFileSync(builtinPropositionFilePath(dimension), "utf8"),
    );
  files.set("transcripts/example.json", read("transcript.json"));
  files.set("fixtures/judge-fixtures.json", read("judge-fixtures.json"));
  files.set(".github/workflows/persona-check.yml", read("persona-check.yml"));
  return files;
}

/** The baseline files init writes for the example (one per character, one for the channels), checked before writing. */
function baselineFiles(): string[] {
  const example = JSON.parse(readFileSync(join(SCAFFOLD, "transcript.json"), "utf8")) as {
    agents: { id: string }[];
  };
  return [...example.agents.map((a) => `baselines/${a.id}.json`), `baselines/${ENVIRONMENT_BASELINE_FILE}`];
}

export async function initCommand(
  dir: string | undefined,
  { force = false }: { force?: boolean } = {},
): Promise<number> {
  const root = resolve(dir ?? ".");
  const files = scaffoldFiles();
  const written = [...files.keys(), ...baselineFiles()];
  const existing = written.filter((f) => existsSync(join(root, f)));
  if (existing.length > 0 && !force)
    throw new InputError(
      `${existing.length === written.length ? "this folder already holds a Dramaturg project" : "these files already exist"}: ${existing.join(", ")}; expected an empty folder, or --force to overwrite them`,
      { file: root },
    );
  for (const [name, text] of files) {
    const path = join(root, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  // .gitignore is shared with the rest of the repository: the store's line is added, nothing replaced.
  const gitignore = join(root, ".gitignore");
  const ignored = existsSync(gitignore) ? readFileSync(gitignore, "utf8") : "";
  const hasLine = ignored
    .split(/\r?\n/)
    .some((l) => [IGNORED, ".dramaturg", "/.dramaturg/"].includes(l.trim()));
  if (!hasLine)
    appendFileSync(
      gitignore,
      `${ignored && !ignored.endsWith("\n") ? "\n" : ""}# Dramaturg's local store\n${IGNORED}\n`,
    );
  // The example's baselines, so `ci` (and the workflow on the first pull request) and `serve` work at once.
  // Judged by the hand-written verdicts in a memory store: nothing else is written.
  const setup = setupEvaluation([], {
    config: join(root, "dramaturg.yaml"),
    db: "memory://",
    progress: false,
  });
  writeBaselineFiles(await measure(setup), setup.settings.baselines);

  const where = relative(process.cwd(), root) || ".";
  const cd = where === "." ? "" : `cd ${where} && `;
  process.stdout.write(
    [
      `Created a Dramaturg project in ${where}:`,
      ...[...written, ".gitignore"].map((f) => `  ${f}`),
      "",
      "Next:",
      // What the user types in a shell where dramaturg is a dependency of the project, not a global command.
      // Each runs offline as written (a test and .ci/package-check.sh run every one).
      `  ${cd}npx dramaturg eval     # score the example offline (hand-written verdicts)`,
      `  ${cd}npx dramaturg ci       # compare with baselines/, as the CI workflow does on each pull request`,
      `  ${cd}npx dramaturg doctor   # check the project file, the store and the judge`,
      `  ${cd}npx dramaturg serve    # the dashboard on http://127.0.0.1:4477 (Ctrl-C stops)`,
      "",
      ...workflowNeeds(root, cd),
      "For a live judge, set judge.model in dramaturg.yaml (e.g. openai:gpt-4o-mini with OPENAI_API_KEY exported,",
      "and the key in the repository's secrets for the workflow), then `npx dramaturg baseline` and commit baselines/.",
      "",
    ].join("\n"),
  );
  return 0;
}

/** What the workflow's `npm ci` needs that the folder lacks: a package.json with dramaturg as a dependency. */
function workflowNeeds(root: string, cd: string): string[] {
  const manifest = join(root, "package.json");
  if (existsSync(manifest) && /"dramaturg"\s*:/.test(readFileSync(manifest, "utf8"))) return [];
  return [
    "The CI workflow installs with `npm ci`: commit a package.json and package-lock.json that list dramaturg",
    `(${cd}npm install --save-dev dramaturg).`,
    "",
  ];
}
