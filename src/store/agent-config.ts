// Per-agent runtime-correction settings (`agent_evaluation_config`): stored, edited a few keys at a time,
// and resolved for a check as stored row > project file > defaults.
import {
  type CorrectionSettings,
  type CorrectionSettingsPatch,
  CorrectionSettingsPatchSchema,
  CorrectionSettingsSchema,
  correctionSettingsOf,
  DEFAULT_CORRECTION_SETTINGS,
  firstIssue,
  InputError,
  issuePath,
  validateInput,
} from "../core/index.ts";
import { iso, jsonParam } from "./columns.ts";
import type { Queryable } from "./db.ts";
import type { Store } from "./store.ts";

/** An agent's stored settings: every key, as last set. */
export interface StoredAgentConfig {
  agent_id: string;
  config: CorrectionSettings;
  updated_at: string;
}

export interface AgentConfigRepository {
  /** The agent's stored settings, or the defaults (everything off) when none are stored. */
  get(agent_id: string): Promise<CorrectionSettings>;
  /** The agent's stored row, if there is one. */
  find(agent_id: string): Promise<StoredAgentConfig | undefined>;
  /**
   * Sets some keys (validated; an unknown key or a bad value is an InputError and nothing is written).
   * A new row starts from the defaults; an existing one keeps the keys not given. `updated_at` moves.
   */
  set(agent_id: string, patch: CorrectionSettingsPatch): Promise<StoredAgentConfig>;
  /** Every stored row, by agent id. */
  list(): Promise<StoredAgentConfig[]>;
}

/** The setting keys, in the schema's (the seed's) order: the table's columns. */
export const AGENT_CONFIG_KEYS = Object.keys(CorrectionSettingsSchema.shape) as (keyof CorrectionSettings)[];

/** A patch checked with the schema; the InputError names the key and what it takes. */
export function validAgentConfigPatch(agentId: string, patch: unknown): CorrectionSettingsPatch {
  const parsed = validateInput(CorrectionSettingsPatchSchema, patch);
  if (parsed.success) return parsed.data as CorrectionSettingsPatch;
  const { path, message } = firstIssue(parsed.error);
  const where = path.length > 0 ? `${issuePath(path)}: ` : "";
  throw new InputError(`settings of agent "${agentId}": ${where}${message}`);
}

type Raw = CorrectionSettings & { agent_id: string; updated_at: Date | string };

/** A stored row as the contract hands it out; `real` thresholds as single precision, as stored. */
export function storedAgentConfigRow(r: Raw): StoredAgentConfig {
  const config = Object.fromEntries(AGENT_CONFIG_KEYS.map((k) => [k, r[k]])) as CorrectionSettings;
  return { agent_id: r.agent_id, config, updated_at: iso(r.updated_at) };
}

const COLUMNS = AGENT_CONFIG_KEYS.join(", ");

export function agentConfigRepository(db: Queryable): AgentConfigRepository {
  const find = async (agentId: string) => {
    const result = await db.query<Raw>(
      `SELECT agent_id, ${COLUMNS}, updated_at FROM agent_evaluation_config WHERE agent_id = $1`,
      [agentId],
    );
    const row = result.rows[0];
    return row && storedAgentConfigRow(row);
  };
  return {
    async get(agentId) {
      return (await find(agentId))?.config ?? { ...DEFAULT_CORRECTION_SETTINGS };
    },
    find,
    async set(agentId, input) {
      const patch = validAgentConfigPatch(agentId, input);
      const given = AGENT_CONFIG_KEYS.filter((k) => patch[k] !== undefined);
      // One statement: a new row is the defaults with the patch; an existing one takes the given keys only.
      const result = await db.query<Raw>(
        `INSERT INTO agent_evaluation_config AS c (agent_id, ${COLUMNS})
         SELECT $1, ${COLUMNS} FROM jsonb_populate_record(NULL::agent_evaluation_config, $2::jsonb)
         ON CONFLICT (agent_id) DO UPDATE
           SET ${[...given.map((k) => `${k} = excluded.${k}`), "updated_at = now()"].join(", ")}
         RETURNING agent_id, ${COLUMNS}, updated_at`,
        [agentId, jsonParam({ ...DEFAULT_CORRECTION_SETTINGS, ...patch })],
      );
      return storedAgentConfigRow(result.rows[0]!);
    },
    async list() {
      const result = await db.query<Raw>(
        `SELECT agent_id, ${COLUMNS}, updated_at FROM agent_evaluation_config ORDER BY agent_id`,
      );
      return result.rows.map(storedAgentConfigRow);
    },
  };
}

/** Where an agent's settings came from. */
export type AgentConfigSource = "store" | "project file" | "default";

/** Settings from the project file: per agent id, `_default` for every agent (the propositions' convention). */
export type ProjectAgentConfigs = Readonly<Record<string, CorrectionSettingsPatch>>;

export interface ResolvedAgentConfig {
  agent_id: string;
  config: CorrectionSettings;
  source: AgentConfigSource;
  /** When the stored row was last set (source `store`). */
  updated_at?: string;
}

/**
 * The settings a check of this agent uses. A stored row, once there, is the agent's whole configuration
 * (`config agent set` starts it from what this resolves to, so it keeps the project file's values); else
 * the project file's `corrections.<agent>` over its `corrections._default`, over the defaults. Without a
 * store (none created yet), the project file and the defaults.
 */
export async function agentCorrectionSettings(
  store: Pick<Store, "agentConfig"> | undefined,
  agentId: string,
  project: ProjectAgentConfigs = {},
): Promise<ResolvedAgentConfig> {
  return resolveAgentConfig(agentId, await store?.agentConfig.find(agentId), project);
}

/** {@link agentCorrectionSettings} with the agent's stored row already read (or undefined: none). */
export function resolveAgentConfig(
  agentId: string,
  stored: StoredAgentConfig | undefined,
  project: ProjectAgentConfigs = {},
): ResolvedAgentConfig {
  if (stored)
    return { agent_id: agentId, config: stored.config, source: "store", updated_at: stored.updated_at };
  const shared = project._default;
  const own = agentId === "_default" ? undefined : project[agentId];
  if (!shared && !own)
    return { agent_id: agentId, config: { ...DEFAULT_CORRECTION_SETTINGS }, source: "default" };
  return {
    agent_id: agentId,
    config: correctionSettingsOf(shared, own),
    source: "project file",
  };
}
