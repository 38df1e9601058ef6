// `dramaturg show [ID]`: prints a stored evaluation's result again — no judge call, no input files.
import { InputError } from "../../core/index.ts";
import type { QueuedProgress } from "../../queue/index.ts";
import { loadEvalResult } from "../../scorers/index.ts";
import { type Store, storeExists } from "../../store/index.ts";
import { emitEvalResult } from "../evaluation-report.ts";
import { writeHtmlReport, writeHtmlReportFrom } from "../html-report.ts";
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
  const reportOf = (evaluationId: string) => ({
    evaluationIds: [evaluationId],
    out: flags.out,
    regressionThreshold: settings.thresholds.regression,
  });
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
      // Queued or running: no result yet, but how far it has got.
      const progress = await inProgress(store, id);
      if (progress) {
        const { renderProgress } = await import("../queued-report.ts");
        return print(
          format === "json" ? `${JSON.stringify(progress, null, 2)}\n` : `${renderProgress([progress])}\n`,
        );
      }
      const { loadSessionAnalysis } = await import("../../sessions/index.ts");
      const analysis = await ofKind(loadSessionAnalysis({ store, id }));
      if (analysis && format === "html") {
        await writeHtmlReport(store, reportOf(analysis.evaluation_id ?? id));
        return 0;
      }
      if (analysis) {
        const { emitSessions } = await import("../session-report.ts");
        await emitSessions(analysis, format, flags.out);
        return 0;
      }
      const { loadConversationResult } = await import("../../conversations/index.ts");
      const conversation = await ofKind(loadConversationResult({ store, id }));
      if (conversation && format === "html") {
        await writeHtmlReport(store, reportOf(conversation.evaluation_id ?? id));
        return 0;
      }
      if (conversation) {
        const { renderConversationTable } = await import("../conversation-report.ts");
        return print(
          format === "json"
            ? `${JSON.stringify(conversation, null, 2)}\n`
            : `${renderConversationTable([conversation])}\n`,
        );
      }
      const { loadCalibration } = await import("../../calibration/index.ts");
      const calibration = await ofKind(loadCalibration({ store, id }));
      if (calibration && format === "html") {
        await writeHtmlReport(store, reportOf(calibration.evaluation_id!));
        return 0;
      }
      if (calibration) {
        const report = await import("../calibration-report.ts");
        return print(
          format === "json"
            ? `${JSON.stringify(calibration, null, 2)}\n`
            : format === "markdown"
              ? report.renderCalibrationMarkdown(calibration)
              : report.renderCalibrationTable(calibration),
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
  const result = await loadEvalResult({ store: settings.db, id });
  if (format === "html") await writeHtmlReportFrom(settings.db, reportOf(result.evaluation_id));
  else emitEvalResult(result, format, { out: flags.out, settings });
  return 0;
}
