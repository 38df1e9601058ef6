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
  // An id may name a session analysis, a conversation run or a simulation: each is reprinted the way its
  // command printed it.
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
        await emitSessions(analysis, format, flags.out);
        return 0;
      }
      const { loadConversationResult } = await import("../../conversations/index.ts");
      const conversation = await loadConversationResult({ store, id }).catch((error) => {
        if (InputError.isInstance(error)) return undefined;
        throw error;
      });
      if (conversation) {
        const { renderConversationTable } = await import("./converse.ts");
        const text =
          format === "json"
            ? `${JSON.stringify(conversation, null, 2)}\n`
            : `${renderConversationTable([conversation])}\n`;
        if (flags.out) {
          const { writeFileSync } = await import("node:fs");
          writeFileSync(flags.out, text);
          process.stderr.write(`wrote ${flags.out}\n`);
        } else process.stdout.write(text);
        return 0;
      }
      const { loadSimulationResult } = await import("../../corrections/index.ts");
      const simulation = await loadSimulationResult({ store, id }).catch((error) => {
        if (InputError.isInstance(error)) return undefined;
        throw error;
      });
      if (simulation) {
        const { renderSimulation } = await import("./simulate.ts");
        const text =
          format === "json" ? `${JSON.stringify(simulation, null, 2)}\n` : renderSimulation(simulation);
        if (flags.out) {
          const { writeFileSync } = await import("node:fs");
          writeFileSync(flags.out, text);
          process.stderr.write(`wrote ${flags.out}\n`);
        } else process.stdout.write(text);
        return 0;
      }
    } finally {
      await store.close();
    }
  }
  emit(await loadEvalResult({ store: settings.db, id }), format, { out: flags.out, settings });
  return 0;
}
