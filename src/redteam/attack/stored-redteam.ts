// A red-team run as a stored evaluation of kind `redteam`: created and started before the first attack, its
// persona stored as an agent (the list's agent filter), its `dramaturg.redteam/v1` document kept for
// `dramaturg show`, `runs --kind redteam` and the dashboard. A run that throws is marked failed, and rethrown.
import { contentHash } from "../../core/index.ts";
import { loadStoredResult, type Store, type StoredListQuery } from "../../engine/index.ts";
import { REDTEAM_FORMAT, type RedteamResult } from "./redteam-result.ts";
import { type RedteamOptions, runRedteam } from "./run-redteam.ts";

export interface RunStoredRedteamOptions extends RedteamOptions {
  store: Store;
  /** What was attacked, as recorded (the persona file's name). Default `redteam`. */
  source?: string;
}

export type StoredRedteamResult = RedteamResult & { evaluation_id: string };

export async function runStoredRedteam({
  store,
  source,
  ...options
}: RunStoredRedteamOptions): Promise<StoredRedteamResult> {
  const { persona } = options;
  await store.agents.upsert([{ id: persona.id, name: persona.name, persona: persona.persona }]);
  const created = await store.evaluations.create({
    kind: "redteam",
    source: source ?? "redteam",
    agents: [persona.id],
    config: {
      persona: { id: persona.id, persona_hash: contentHash(persona.persona) },
      attacker: options.attacker.descriptor,
      judge: options.judge.descriptor,
      strategies: options.strategies ?? null,
      attacks: options.attacks ?? null,
      first_seed: options.firstSeed ?? null,
      max_turns: options.maxTurns ?? null,
      max_calls: options.maxCalls ?? null,
      threshold: options.threshold ?? null,
      corrections: options.corrections ?? null,
    },
  });
  const id = created.id;
  await store.evaluations.start(id);
  try {
    const result = await runRedteam(options);
    await store.evaluations.complete(id, { result });
    return { ...result, evaluation_id: id };
  } catch (error) {
    await store.evaluations.fail(id, error instanceof Error ? error.message : String(error));
    throw error;
  }
}

/** A stored red-team run by id (or its first 8+ characters); the latest with none. */
export function loadRedteamResult({
  store,
  id,
}: {
  store: Store;
  id?: string;
}): Promise<StoredRedteamResult> {
  return loadStoredResult<RedteamResult>(store, id, {
    kind: "redteam",
    format: REDTEAM_FORMAT,
    noun: "red-team run",
  });
}

export interface RedteamLine {
  id: string;
  created_at: string;
  status: string;
  persona: string | null;
  attacks: number | null;
  /** Success rate without the gate, and with it when it was on: `0.43` or `0.43 → 0.00`. */
  success: string;
}

/** One line per stored red-team run, newest first. */
export async function listRedteamResults({
  store,
  limit = 50,
  ...page
}: { store: Store; limit?: number } & Omit<StoredListQuery, "limit">): Promise<RedteamLine[]> {
  const rows = await store.evaluations.list({ kind: "redteam", limit, ...page });
  const out: RedteamLine[] = [];
  for (const row of rows) {
    const result =
      row.status === "completed"
        ? ((await store.evaluations.result(row.id)) as RedteamResult | undefined)
        : undefined;
    const document = result?.format === REDTEAM_FORMAT ? result : undefined;
    out.push({
      id: row.id,
      created_at: row.created_at,
      status: row.status,
      persona: document?.persona.id ?? null,
      attacks: document ? document.arms[0]!.attacks : null,
      success: document ? document.arms.map((a) => a.success_rate.toFixed(2)).join(" → ") : "–",
    });
  }
  return out;
}
