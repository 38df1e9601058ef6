// `dramaturg doctor`: checks the project file, the store and the judge, and says in plain words what to
// fix. It writes nothing: the store is opened without migrating, and only if it already exists.
import type { Command } from "commander";
import { JUDGE_SPEC_FORMS, parseStoreLocation, STORE_LOCATION_FORMS } from "../../core/index.ts";
import type { Check } from "../doctor-checks.ts";
import { setExitCode } from "../exit-code.ts";
import { examples } from "../help-examples.ts";

interface DoctorFlags {
  config?: string;
  db?: string;
  judge?: string;
  judgeBaseUrl?: string;
}

const MARK: Record<Check["status"], string> = { ok: "✓", warn: "!", fail: "✗", skip: "–" };

export function registerDoctorCommand(program: Command): void {
  program
    .command("doctor")
    .description("check the project file, the store and the judge, and say what to fix")
    .option("--config <file>", "project file to check instead of searching for dramaturg.yaml")
    .option("--db <location>", `store to check: ${STORE_LOCATION_FORMS}`)
    .option("--judge <spec>", `judge to check: ${JUDGE_SPEC_FORMS}`)
    .option("--judge-base-url <url>", "base URL of an OpenAI-compatible server")
    .addHelpText(
      "after",
      examples(
        "dramaturg doctor",
        "OPENAI_API_KEY=… dramaturg doctor --judge openai:gpt-4o-mini",
        "dramaturg doctor --db postgres://ci@db.internal/dramaturg",
      ),
    )
    .action(async (flags: DoctorFlags) => setExitCode(await doctorCommand(flags)));
}

export async function doctorCommand(
  flags: DoctorFlags,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const { checkProjectFile, checkStore, checkJudge } = await import("../doctor-checks.ts");
  const checks: Check[] = [];
  const project = checkProjectFile(flags);
  checks.push(project.check);
  if (project.settings) {
    checks.push(await checkStore(parseStoreLocation(project.settings.db)));
    checks.push(await checkJudge(project.settings, env));
  } else {
    checks.push({
      name: "store",
      status: "skip",
      detail: "not checked: the project file must be fixed first",
    });
    checks.push({
      name: "judge",
      status: "skip",
      detail: "not checked: the project file must be fixed first",
    });
  }
  const lines = checks.map((c) => {
    const head = `${MARK[c.status]} ${c.name.padEnd(12)} ${c.detail}`;
    return c.fix ? `${head}\n  ${" ".repeat(13)}→ ${c.fix}` : head;
  });
  const failed = checks.filter((c) => c.status === "fail");
  lines.push(
    "",
    failed.length === 0
      ? "all checks passed"
      : `${failed.length} check${failed.length === 1 ? "" : "s"} failed`,
  );
  process.stdout.write(`${lines.join("\n")}\n`);
  // A bad project file is bad input (2); otherwise an unreachable store or judge means nothing can run (3).
  const codes = failed.map((c) => c.exitCode ?? 3);
  return codes.includes(3) ? 3 : codes.length > 0 ? 2 : 0;
}
