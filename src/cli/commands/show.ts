// `dramaturg show [ID]`: prints a stored evaluation's result again — no judge call, no input files.
import { InputError } from "../../core/index.ts";
import { loadEvalResult } from "../../scorers/index.ts";
import { storeExists } from "../../store/index.ts";
import { emitEvalResult } from "../evaluation-report.ts";
import { resolveSettings } from "../settings.ts";

export async function showCommand(
  id: string | undefined,
  flags: { format?: string; out?: string; db?: string; config?: string },
): Promise<number> {
  const format = flags.format ?? "table";
  if (!["table", "json", "markdown"].includes(format))
    throw new InputError(`--format must be table, json or markdown, got ${JSON.stringify(format)}`);
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  if (!storeExists(settings.db)) throw new InputError("no store here to show from", { place: settings.db });
  // An id may name a session analysis, a conversation run or a simulation: each is reprinted the way its
  // command printed it.
  if (id !== undefined) {
    const { openStore } = await import("../../store/index.ts");
    const store = await openStore(settings.db);
    // A loader refuses an id of another kind (or none) with an InputError: then the next kind is tried.
    const ofKind = <T>(loading: Promise<T>) =>
      loading.catch((error) => {
        if (InputError.isInstance(error)) return undefined;
        throw error;
      });
    const print = async (text: string) => {
      if (flags.out) {
        const { writeFileSync } = await import("node:fs");
        writeFileSync(flags.out, text);
        process.stderr.write(`wrote ${flags.out}\n`);
      } else process.stdout.write(text);
      return 0;
    };
    try {
      const { loadSessionAnalysis } = await import("../../sessions/index.ts");
      const analysis = await ofKind(loadSessionAnalysis({ store, id }));
      if (analysis) {
        const { emitSessions } = await import("../session-report.ts");
        await emitSessions(analysis, format, flags.out);
        return 0;
      }
      const { loadConversationResult } = await import("../../conversations/index.ts");
      const conversation = await ofKind(loadConversationResult({ store, id }));
      if (conversation) {
        const { renderConversationTable } = await import("../conversation-report.ts");
        return print(
          format === "json"
            ? `${JSON.stringify(conversation, null, 2)}\n`
            : `${renderConversationTable([conversation])}\n`,
        );
      }
      const { loadSimulationResult } = await import("../../corrections/index.ts");
      const simulation = await ofKind(loadSimulationResult({ store, id }));
      if (simulation) {
        const { renderSimulation } = await import("../corrections-report.ts");
        return print(
          format === "json" ? `${JSON.stringify(simulation, null, 2)}\n` : renderSimulation(simulation),
        );
      }
    } finally {
      await store.close();
    }
  }
  emitEvalResult(await loadEvalResult({ store: settings.db, id }), format, { out: flags.out, settings });
  return 0;
}
