// A drift run as a stored evaluation of kind `drift`: created and started before the first call to the
// target, its personas stored as agents (the list's agent filter), its `dramaturg.drift/v1` document kept for
// `dramaturg show`, `runs --kind drift` and the dashboard (the drift kind reads it back). A run that throws is
// marked failed with its error, and the error is rethrown.
import { contentHash } from "../../core/index.ts";
import { loadStoredResult, type Store, type StoredListQuery } from "../../engine/index.ts";
import { DRIFT_FORMAT, type DriftResult } from "./drift-result.ts";
import { type DriftOptions, runDrift } from "./run-drift.ts";

export interface RunStoredDriftOptions extends DriftOptions {
  store: Store;
  /** What was probed, as recorded (the persona files' names). Default `drift`. */
  source?: string;
}

export type StoredDriftResult = DriftResult & { evaluation_id: string };

export async function runStoredDrift({
  store,
  source,
  ...options
}: RunStoredDriftOptions): Promise<StoredDriftResult> {
  await store.agents.upsert(options.personas.map(({ id, name, persona }) => ({ id, name, persona })));
  const created = await store.evaluations.create({
    kind: "drift",
    source: source ?? "drift",
    agents: options.personas.map((p) => p.id),
    config: {
      personas: options.personas.map((p) => ({ id: p.id, persona_hash: contentHash(p.persona) })),
      probes: {
        source: options.probeSource ?? "built-in",
        hash: options.probes ? contentHash(options.probes) : "built-in",
      },
      turns: options.turns ?? null,
      seeds: options.seeds ?? null,
      first_seed: options.firstSeed ?? null,
      bar: options.bar ?? null,
      partner: options.partnerKind ?? null,
      judge: options.judge?.descriptor ?? null,
    },
  });
  const id = created.id;
  await store.evaluations.start(id);
  try {
    const result = await runDrift(options);
    await store.evaluations.complete(id, { result });
    return { ...result, evaluation_id: id };
  } catch (error) {
    await store.evaluations.fail(id, error instanceof Error ? error.message : String(error));
    throw error;
  }
}

/** A stored drift run by id (or its first 8+ characters); the latest with none. */
export function loadDriftResult({ store, id }: { store: Store; id?: string }): Promise<StoredDriftResult> {
  return loadStoredResult<DriftResult>(store, id, { kind: "drift", format: DRIFT_FORMAT, noun: "drift run" });
}

export interface DriftLine {
  id: string;
  created_at: string;
  status: string;
  /** Each persona's first turn under the bar: `marta@6 jim@–`. */
  drops: string;
  turns: number | null;
  seeds: number | null;
  probes: number | null;
}

/** One line per stored drift run, newest first. */
export async function listDriftResults({
  store,
  limit = 50,
  ...page
}: { store: Store; limit?: number } & Omit<StoredListQuery, "limit">): Promise<DriftLine[]> {
  const rows = await store.evaluations.list({ kind: "drift", limit, ...page });
  const out: DriftLine[] = [];
  for (const row of rows) {
    const result =
      row.status === "completed"
        ? ((await store.evaluations.result(row.id)) as DriftResult | undefined)
        : undefined;
    const document = result?.format === DRIFT_FORMAT ? result : undefined;
    out.push({
      id: row.id,
      created_at: row.created_at,
      status: row.status,
      drops: document ? document.personas.map((p) => `${p.id}@${p.first_below_bar ?? "–"}`).join(" ") : "–",
      turns: document?.turns ?? null,
      seeds: document?.seeds.length ?? null,
      probes: document?.probes.count ?? null,
    });
  }
  return out;
}
