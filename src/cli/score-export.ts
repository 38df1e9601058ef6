// What `dramaturg export` and the commands with `export:` rules share: where the export ledger is kept for a
// store, and how the rules export a command's run as it finishes.
import { parseStoreLocation } from "../core/index.ts";
import type { ExportAfter, ExportRule } from "../export/index.ts";

/**
 * The ledger beside a store: `<folder>.exports.json` for a PGlite folder, `.dramaturg-exports.json` in the
 * working directory for a PostgreSQL server; none for memory://, whose runs end with the process.
 */
export function defaultLedger(db: string): string | undefined {
  const location = parseStoreLocation(db);
  if (location.kind === "memory") return undefined;
  if (location.kind === "folder") return `${location.path.replace(/[\\/]+$/, "")}.exports.json`;
  return ".dramaturg-exports.json";
}

/**
 * The project's `export:` rules for a command's finished run: each matching rule exports the run's scores from
 * the store (a folder or a server; a memory:// store is gone with the run, which is said). Returns the exit code
 * the export adds: 3 when one could not complete (the run itself is stored and its result printed).
 */
export async function exportAfterRun(
  rules: readonly ExportRule[],
  {
    command,
    db,
    evaluationIds,
  }: { command: ExportAfter; db: string; evaluationIds: readonly (string | undefined)[] },
): Promise<number> {
  const matching = rules.filter((r) => r.after === undefined || r.after.includes(command));
  const ids = evaluationIds.filter((id) => id !== undefined);
  if (matching.length === 0 || ids.length === 0) return 0;
  if (parseStoreLocation(db).kind === "memory") {
    process.stderr.write(
      "dramaturg: export: rules skipped: a memory:// store keeps nothing to export from\n",
    );
    return 0;
  }
  const [{ exportByRule, exportOutcomeLines, undelivered }, { openStore }, { DramaturgError }] =
    await Promise.all([
      import("../export/index.ts"),
      import("../store/index.ts"),
      import("../core/index.ts"),
    ]);
  const store = await openStore(db);
  let code = 0;
  try {
    for (const rule of matching)
      for (const evaluationId of ids) {
        try {
          const outcome = await exportByRule(rule, { store, id: evaluationId, ledger: defaultLedger(db) });
          process.stderr.write(`${exportOutcomeLines(outcome).join("\n")}\n`);
          if (undelivered(outcome) > 0) code = 3;
        } catch (error) {
          if (!DramaturgError.isInstance(error)) throw error;
          process.stderr.write(`dramaturg: export to ${rule.to}: ${error.message}\n`);
          code = Math.max(code, error.exitCode === 2 ? 2 : 3);
        }
      }
  } finally {
    await store.close();
  }
  return code;
}
