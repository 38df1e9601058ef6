// `dramaturg runs`: lists stored evaluation runs, newest first, after the evaluations queued or being judged
// (any kind) with their progress.
import { round } from "../../core/index.ts";
import type { QueuedProgress } from "../../queue/index.ts";
import { openStore, type Store } from "../../store/index.ts";
import { limitFlag, tableOrJson } from "../flags.ts";
import { resolveSettings } from "../settings.ts";

/** Evaluations of any kind queued or being judged, newest first, with their progress. */
async function unfinished(store: Store, { agent, limit }: { agent?: string; limit: number }) {
  const rows = [
    ...(await store.evaluations.list({ status: "pending", agent, limit })),
    ...(await store.evaluations.list({ status: "running", agent, limit })),
  ]
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id))
    .slice(0, limit);
  if (rows.length === 0) return [];
  const { queuedProgress } = await import("../../queue/index.ts");
  const out: QueuedProgress[] = [];
  for (const row of rows) {
    const progress = await queuedProgress(store, row);
    if (progress) out.push(progress);
  }
  return out;
}

export async function runsCommand(flags: {
  agent?: string;
  format?: string;
  limit?: string;
  db?: string;
  config?: string;
}) {
  const format = tableOrJson(flags.format);
  const limit = limitFlag(flags.limit, 50);
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  const store = await openStore(settings.db);
  try {
    const runs = await store.runs.list({ agent: flags.agent, limit });
    const progress = await unfinished(store, { agent: flags.agent, limit });
    if (format === "json") {
      process.stdout.write(`${JSON.stringify({ runs, in_progress: progress }, null, 2)}\n`);
      return 0;
    }
    if (progress.length > 0) {
      const { renderProgress } = await import("../queued-report.ts");
      process.stdout.write(`${renderProgress(progress)}\n${runs.length > 0 ? "\n" : ""}`);
    }
    if (runs.length === 0) {
      if (progress.length === 0) process.stdout.write("no runs stored yet\n");
      return 0;
    }
    const rows = [["run", "agent", "status", "created", "sample", "overall", "errored", "judge", "baseline"]];
    for (const r of runs)
      rows.push([
        r.id.slice(0, 8),
        r.agent_id,
        r.status,
        r.created_at.slice(0, 19).replace("T", " "),
        String(r.sample_size),
        r.overall_score === null ? "–" : round(r.overall_score, 2).toFixed(2),
        String(r.errored),
        r.judge ? `${r.judge.provider}:${r.judge.model}`.slice(0, 40) : "",
        r.is_baseline ? "yes" : "",
      ]);
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
    process.stdout.write(
      `${rows
        .map((row) =>
          row
            .map((c, i) => c.padEnd(widths[i]!))
            .join("  ")
            .trimEnd(),
        )
        .join("\n")}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}
