// `dramaturg show [ID]`: prints a stored evaluation's result again — no judge call, no input files.
import { InputError } from "../../core/index.ts";
import { loadEvalResult } from "../../scorers/index.ts";
import { storeExists } from "../../store/index.ts";
import { resolveSettings } from "../settings.ts";
import { emit } from "./eval.ts";

export async function showCommand(
  id: string | undefined,
  flags: { format?: string; out?: string; db?: string; config?: string },
): Promise<number> {
  const format = flags.format ?? "table";
  if (!["table", "json", "markdown"].includes(format))
    throw new InputError(`--format must be table, json or markdown, got ${JSON.stringify(format)}`);
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  if (!storeExists(settings.db)) throw new InputError("no store here to show from", { place: settings.db });
  // An id may name a session analysis: it is reprinted the way `session analyze` printed it.
  if (id !== undefined) {
    const { openStore } = await import("../../store/index.ts");
    const { loadSessionAnalysis } = await import("../../sessions/index.ts");
    const store = await openStore(settings.db);
    try {
      const analysis = await loadSessionAnalysis({ store, id }).catch((error) => {
        if (InputError.isInstance(error)) return undefined;
        throw error;
      });
      if (analysis) {
        const { emitSessions } = await import("./session.ts");
        emitSessions(analysis, format, flags.out);
        return 0;
      }
    } finally {
      await store.close();
    }
  }
  emit(await loadEvalResult({ store: settings.db, id }), format, { out: flags.out, settings });
  return 0;
}
