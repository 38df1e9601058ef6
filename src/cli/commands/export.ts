// `dramaturg export ID --to langfuse|phoenix|otlp`: a stored evaluation's scores to a tracing tool. Keys from
// the environment only; a rerun sends only what the ledger says did not arrive. Exit 3 when the tool refuses
// the keys, could not be reached, or refused or rejected some scores (the run could not complete; a rerun sends
// the refused ones again).
import { InputError } from "../../core/index.ts";
import { EXPORT_TARGETS, type ExportTarget } from "../../export/index.ts";
import { openStore, storeExists } from "../../store/index.ts";
import { tableOrJson } from "../flags.ts";
import { defaultLedger } from "../score-export.ts";
import { resolveSettings } from "../settings.ts";

export async function exportCommand(
  id: string,
  flags: {
    to?: string;
    propositions?: boolean;
    ledger?: string;
    format?: string;
    db?: string;
    config?: string;
  },
): Promise<number> {
  const format = tableOrJson(flags.format);
  if (!EXPORT_TARGETS.includes(flags.to as ExportTarget))
    throw new InputError(`--to must be one of ${EXPORT_TARGETS.join(", ")}, got ${JSON.stringify(flags.to)}`);
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  const { exportDestination, exportOutcomeLines, exportScores, undelivered } = await import(
    "../../export/index.ts"
  );
  // The keys and host first: a missing key is bad usage whatever the store holds.
  exportDestination(flags.to as ExportTarget, { env: process.env });
  if (!storeExists(settings.db)) throw new InputError("no store here to export from", { place: settings.db });
  const store = await openStore(settings.db);
  try {
    const outcome = await exportScores({
      store,
      id,
      to: flags.to as ExportTarget,
      propositions: flags.propositions === true,
      ledger: flags.ledger ?? defaultLedger(settings.db),
      onProgress: (sent, total) => process.stderr.write(`sent ${sent} of ${total}\n`),
    });
    process.stdout.write(
      format === "json"
        ? `${JSON.stringify(outcome, null, 2)}\n`
        : `${exportOutcomeLines(outcome).join("\n")}\n`,
    );
    return undelivered(outcome) > 0 ? 3 : 0;
  } finally {
    await store.close();
  }
}
