// `dramaturg init [DIR]`: scaffolds a project that works offline at once: project file and its JSON Schema,
// the built-in proposition sets, an example transcript with hand-written verdicts, a CI workflow.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { InputError, PERSONA_DIMENSIONS } from "../../core/index.ts";
import { builtinPropositionFilePath } from "../../propositions/index.ts";
import { setExitCode } from "../exit-code.ts";
import { examples } from "../help-examples.ts";
import { projectFileJsonSchema } from "../settings.ts";

const SCAFFOLD = fileURLToPath(new URL("../scaffold/", import.meta.url));

/** The store folder, kept out of version control. */
const IGNORED = ".dramaturg/";

export function registerInitCommand(program: Command): void {
  program
    .command("init")
    .description("create a Dramaturg project: dramaturg.yaml, propositions, an example, a CI workflow")
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
    .action((dir: string | undefined, flags: { force?: boolean }) => setExitCode(initCommand(dir, flags)));
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

export function initCommand(dir: string | undefined, { force = false }: { force?: boolean } = {}): number {
  const root = resolve(dir ?? ".");
  const files = scaffoldFiles();
  const existing = [...files.keys()].filter((f) => existsSync(join(root, f)));
  if (existing.length > 0 && !force)
    throw new InputError(
      `${existing.length === files.size ? "this folder already holds a Dramaturg project" : "these files already exist"}: ${existing.join(", ")}; expected an empty folder, or --force to overwrite them`,
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

  const where = relative(process.cwd(), root) || ".";
  const cd = where === "." ? "" : `cd ${where} && `;
  process.stdout.write(
    [
      `Created a Dramaturg project in ${where}:`,
      ...[...files.keys(), ".gitignore"].map((f) => `  ${f}`),
      "",
      "Next:",
      // What the user types in a shell where dramaturg is a dependency of the project, not a global command.
      `  ${cd}npx dramaturg eval                              # score the example offline (hand-written verdicts)`,
      `  ${cd}npx dramaturg doctor                            # check the project file, the store and the judge`,
      `  ${cd}npx dramaturg eval --judge openai:gpt-4o-mini   # a live judge (export OPENAI_API_KEY=… first)`,
      "",
    ].join("\n"),
  );
  return 0;
}
