// A red-team run as a stored evaluation of kind `redteam`: created and started before the first attack, its
// persona stored as an agent (the list's agent filter), its `dramaturg.redteam/v1` document kept for
// `dramaturg show`, `runs --kind redteam` and the dashboard. A run that throws is marked failed with the attacks
// it finished, and rethrown; `resume` continues the latest such run of the same settings, running only the
// attacks it lacks (the document is the same bytes as an uninterrupted run's).
import { contentHash, InputError } from "../../core/index.ts";
import { loadStoredResult, type Store, type StoredListQuery } from "../../engine/index.ts";
import { attackerCheckSet } from "./attacker-check.ts";
import { type AttackRecord, REDTEAM_FORMAT, type RedteamResult } from "./redteam-result.ts";
import { type RedteamOptions, runRedteam } from "./run-redteam.ts";

export interface RunStoredRedteamOptions extends RedteamOptions {
  store: Store;
  /** What was attacked, as recorded (the persona file's name). Default `redteam`. */
  source?: string;
  /** Continue the latest red-team run that did not complete (its settings must be these). */
  resume?: boolean;
}

/** What a failed run keeps for a resume: the attacks it finished. */
const PARTIAL_FORMAT = "dramaturg.redteam-partial/v1";

export type StoredRedteamResult = RedteamResult & { evaluation_id: string };

export async function runStoredRedteam({
  store,
  source,
  resume = false,
  ...options
}: RunStoredRedteamOptions): Promise<StoredRedteamResult> {
  const { persona } = options;
  // As the store keeps it (JSON: no undefined), so that a resume compares like with like.
  const config = JSON.parse(
    JSON.stringify({
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
      // The attacker check's propositions (their hash), or false when it is off: a resumed run's stored
      // attacks keep the check they had, so the rest must have the same one.
      simulator_check: attackerCheckSet(options.simulatedUser)?.hash ?? false,
    }),
  ) as Record<string, unknown>;
  let id: string;
  let done: AttackRecord[] = [];
  if (resume) {
    const row = await store.evaluations.latestIncomplete("redteam");
    if (!row) throw new InputError("no red-team run to resume: every one completed", { place: "--resume" });
    if (contentHash(row.config) !== contentHash(config))
      throw new InputError(
        `red-team run ${row.id.slice(0, 8)} was started with other settings (persona, attacker, judge, strategies, budgets, corrections or the attacker check); give the same flags to resume it`,
        { place: "--resume" },
      );
    const partial = (await store.evaluations.result(row.id)) as
      | { format?: string; attacks?: AttackRecord[] }
      | undefined;
    done = partial?.format === PARTIAL_FORMAT ? (partial.attacks ?? []) : [];
    id = row.id;
  } else {
    await store.agents.upsert([{ id: persona.id, name: persona.name, persona: persona.persona }]);
    id = (
      await store.evaluations.create({
        kind: "redteam",
        source: source ?? "redteam",
        agents: [persona.id],
        config,
      })
    ).id;
  }
  await store.evaluations.start(id);
  const finished = [...done];
  try {
    const result = await runRedteam({
      ...options,
      done,
      onAttack: (attack) => {
        finished.push(attack);
        options.onAttack?.(attack);
      },
    });
    await store.evaluations.complete(id, { result });
    return { ...result, evaluation_id: id };
  } catch (error) {
    await store.evaluations.fail(id, error instanceof Error ? error.message : String(error), {
      result: { format: PARTIAL_FORMAT, attacks: finished },
    });
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
