// `dramaturg runs`: lists stored evaluations of a kind (`--kind`; by default the persona kind's runs), newest
// first, after the evaluations queued or being judged with their progress.
import { InputError } from "../../core/index.ts";
import type { QueuedProgress } from "../../queue/index.ts";
import { type EvaluationKind, openStore, type Store } from "../../store/index.ts";
import { limitFlag, tableOrJson } from "../flags.ts";
import { resolveSettings } from "../settings.ts";

/** Evaluations queued or being judged (of `kind`, or any), newest first, with their progress. */
async function unfinished(
  store: Store,
  { agent, limit, kind }: { agent?: string; limit: number; kind?: EvaluationKind },
) {
  const rows = [
    ...(await store.evaluations.list({ status: "pending", agent, limit, kind })),
    ...(await store.evaluations.list({ status: "running", agent, limit, kind })),
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
  kind?: string;
  format?: string;
  limit?: string;
  db?: string;
  config?: string;
}) {
  const format = tableOrJson(flags.format);
  const limit = limitFlag(flags.limit, 50);
  const { storedKinds } = await import("../../kinds/index.ts");
  const kinds = storedKinds();
  // By default the persona kind's runs, after what is in progress of any kind.
  const kind = kinds.find((k) => k.kind === (flags.kind ?? "persona"));
  if (!kind)
    throw new InputError(
      `--kind must be one of ${kinds.map((k) => k.kind).join(", ")}, got ${JSON.stringify(flags.kind)}`,
    );
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  const store = await openStore(settings.db);
  try {
    const rows = await kind.list(store, { agent: flags.agent, limit });
    const progress = await unfinished(store, {
      agent: flags.agent,
      limit,
      kind: flags.kind === undefined ? undefined : kind.kind,
    });
    if (format === "json") {
      process.stdout.write(`${JSON.stringify({ [kind.section]: rows, in_progress: progress }, null, 2)}\n`);
      return 0;
    }
    if (progress.length > 0) {
      const { renderProgress } = await import("../queued-report.ts");
      process.stdout.write(`${renderProgress(progress)}\n${rows.length > 0 ? "\n" : ""}`);
    }
    if (rows.length === 0) {
      if (progress.length === 0) process.stdout.write(`no ${kind.section} stored yet\n`);
      return 0;
    }
    process.stdout.write(kind.listTable(rows));
    return 0;
  } finally {
    await store.close();
  }
}
