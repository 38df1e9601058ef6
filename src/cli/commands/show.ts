// `dramaturg show [ID]`: prints a stored evaluation's result again — no judge call, no input files. Every
// stored kind is tried in the registry's order, and reprinted the way its command printed it.
import { InputError } from "../../core/index.ts";
import type { QueuedProgress } from "../../queue/index.ts";
import { type Store, storeExists } from "../../store/index.ts";
import { storedAt } from "../evaluation-report.ts";
import { writeHtmlReport } from "../html-report.ts";
import { checkOutputPaths } from "../output-paths.ts";
import { resolveSettings } from "../settings.ts";

/** The progress of the pending or running evaluation `id` (or its first 8+ characters) names, if one does. */
async function inProgress(store: Store, id: string): Promise<QueuedProgress | undefined> {
  const { queuedProgress } = await import("../../queue/index.ts");
  let row = id.length === 36 ? await store.evaluations.get(id) : undefined;
  if (!row && id.length >= 8) {
    const unfinished = [
      ...(await store.evaluations.list({ status: "pending", limit: 500 })),
      ...(await store.evaluations.list({ status: "running", limit: 500 })),
    ].filter((e) => e.id.startsWith(id));
    if (unfinished.length === 1) row = unfinished[0];
  }
  return row && queuedProgress(store, row);
}

export async function showCommand(
  id: string | undefined,
  flags: { format?: string; out?: string; db?: string; config?: string },
): Promise<number> {
  const format = flags.format ?? "table";
  if (!["table", "json", "markdown", "html"].includes(format))
    throw new InputError(`--format must be table, json, markdown or html, got ${JSON.stringify(format)}`);
  checkOutputPaths({ "--out": flags.out });
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  if (!storeExists(settings.db)) throw new InputError("no store here to show from", { place: settings.db });
  const print = async (text: string) => {
    if (flags.out) {
      const { writeFileSync } = await import("node:fs");
      writeFileSync(flags.out, text);
      process.stderr.write(`wrote ${flags.out}\n`);
    } else process.stdout.write(text);
    return 0;
  };
  const [{ openStore }, { storedKinds }] = await Promise.all([
    import("../../store/index.ts"),
    import("../../kinds/index.ts"),
  ]);
  const store = await openStore(settings.db);
  try {
    // Queued or running: no result yet, but how far it has got.
    const progress = id === undefined ? undefined : await inProgress(store, id);
    if (progress) {
      const { renderProgress } = await import("../queued-report.ts");
      return print(
        format === "json" ? `${JSON.stringify(progress, null, 2)}\n` : `${renderProgress([progress])}\n`,
      );
    }
    const kinds = storedKinds();
    for (const [i, kind] of kinds.entries()) {
      const last = i === kinds.length - 1;
      // With no id, the default kind's latest. A loader refuses an id of another kind (or none) with an
      // InputError: then the next kind is tried, and the default kind's refusal is the answer.
      if (id === undefined && !last) continue;
      const document = await kind.load(store, id).catch((error) => {
        if (!last && InputError.isInstance(error)) return undefined;
        throw error;
      });
      if (document === undefined) continue;
      if (format === "html" && kind.htmlReport) {
        const evaluationId = (document as { evaluation_id?: string }).evaluation_id ?? id!;
        await writeHtmlReport(store, {
          evaluationIds: [evaluationId],
          out: flags.out,
          regressionThreshold: settings.thresholds.regression,
        });
        return 0;
      }
      const context = { minimum: settings.thresholds.minimum, stored: storedAt(settings.db) };
      return print(
        format === "json"
          ? `${JSON.stringify(kind.json(document), null, 2)}\n`
          : format === "markdown"
            ? kind.markdown(document, context)
            : kind.text(document, context),
      );
    }
    throw new Error("no stored kind is registered");
  } finally {
    await store.close();
  }
}
