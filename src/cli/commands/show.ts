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
  emit(await loadEvalResult({ store: settings.db, id }), format, { out: flags.out, settings });
  return 0;
}
