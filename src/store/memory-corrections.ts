// The `memory://` store's correction logs and per-agent correction settings, kept as the SQL backends keep
// them: one timestamp per batch, newest first by insertion order, the outcome checked, reals single precision.
import { z } from "zod";
import {
  CORRECTION_OUTCOMES,
  type CorrectionLog,
  type CorrectionLogEntry,
  type CorrectionSettings,
  CorrectionSettingsSchema,
  correctionStatistics,
  DEFAULT_CORRECTION_SETTINGS,
  StoreError,
} from "../core/index.ts";
import {
  AGENT_CONFIG_KEYS,
  type AgentConfigRepository,
  type StoredAgentConfig,
  validAgentConfigPatch,
} from "./agent-config.ts";
import { isUuid } from "./columns.ts";
import type { CorrectionLogRepository } from "./correction-logs.ts";
import { clock, compareText, isoAt, jsonbText, jsonOut, real, timestampIn } from "./memory-columns.ts";

interface CorrectionLogRecord {
  id: string;
  seq: number;
  agent_id: string;
  run_id: string | null;
  original_text: string;
  corrected_text: string | null;
  /** jsonb text. */
  dimension_scores: string | null;
  similarity_score: number | null;
  total_score: number | null;
  attempt_number: number;
  outcome: CorrectionLog["outcome"];
  /** jsonb text. */
  token_usage: string | null;
  /** Microseconds. */
  created_at: number;
}

export function memoryCorrectionLogs(): CorrectionLogRepository {
  const table: CorrectionLogRecord[] = [];
  let seq = 0;
  const row = (r: CorrectionLogRecord): CorrectionLog => ({
    id: r.id,
    agent_id: r.agent_id,
    run_id: r.run_id,
    original_text: r.original_text,
    corrected_text: r.corrected_text,
    dimension_scores: jsonOut<CorrectionLog["dimension_scores"]>(r.dimension_scores) ?? {},
    similarity_score: r.similarity_score,
    total_score: r.total_score,
    attempt_number: r.attempt_number,
    outcome: r.outcome,
    token_usage: jsonOut<NonNullable<CorrectionLog["token_usage"]>>(r.token_usage),
    created_at: isoAt(r.created_at),
  });
  const list: CorrectionLogRepository["list"] = async ({
    agent_id,
    run_id,
    since,
    until,
    dimension,
    after,
    limit,
  } = {}) => {
    if (after !== undefined && !isUuid(after.id)) return [];
    const from = since === undefined ? undefined : timestampIn(since);
    const to = until === undefined ? undefined : timestampIn(until);
    const newestFirst = (a: Pick<CorrectionLogRecord, "created_at" | "seq">, b: typeof a) =>
      b.created_at - a.created_at || b.seq - a.seq;
    const cursor =
      after &&
      (table.find((r) => r.id === after.id.toLowerCase()) ?? {
        created_at: timestampIn(after.created_at),
        seq: Number.MAX_SAFE_INTEGER,
      });
    const rows = table
      .filter(
        (r) =>
          (agent_id === undefined || r.agent_id === agent_id) &&
          (run_id === undefined || r.run_id === run_id) &&
          (from === undefined || r.created_at >= from) &&
          (to === undefined || r.created_at <= to) &&
          (dimension === undefined ||
            (r.dimension_scores !== null && dimension in JSON.parse(r.dimension_scores))) &&
          (cursor === undefined || newestFirst(cursor, r) < 0),
      )
      .sort(newestFirst);
    return (limit === undefined ? rows : rows.slice(0, limit)).map(row);
  };
  return {
    async add(input) {
      const entries: readonly CorrectionLogEntry[] = Array.isArray(input)
        ? input
        : [input as CorrectionLogEntry];
      // Checked whole first, as one statement would be: a bad row stores nothing of the batch.
      for (const e of entries) checkEntry(e);
      const now = clock();
      const records = entries.map(
        (e): CorrectionLogRecord => ({
          id: crypto.randomUUID(),
          seq: ++seq,
          agent_id: e.agent_id,
          run_id: e.run_id ?? null,
          original_text: e.original_text,
          corrected_text: e.corrected_text ?? null,
          dimension_scores: jsonbText(e.dimension_scores),
          similarity_score: real(e.similarity_score),
          total_score: real(e.total_score),
          attempt_number: e.attempt_number,
          outcome: e.outcome,
          token_usage: jsonbText(e.token_usage),
          created_at: now,
        }),
      );
      table.push(...records);
      return records.map(row);
    },
    list,
    async statistics(query = {}, options) {
      return correctionStatistics(await list(query), options);
    },
  };
}

/** The table's NOT NULL and CHECK constraints, with PostgreSQL's words. */
function checkEntry(e: CorrectionLogEntry): void {
  for (const column of ["agent_id", "original_text", "attempt_number", "outcome"] as const)
    if (e[column] === null || e[column] === undefined)
      throw new StoreError(
        `null value in column "${column}" of relation "correction_logs" violates not-null constraint`,
      );
  if (!(CORRECTION_OUTCOMES as readonly string[]).includes(e.outcome))
    throw new StoreError(
      `new row for relation "correction_logs" violates check constraint "correction_logs_outcome_check"`,
    );
  if (!Number.isInteger(e.attempt_number))
    throw new StoreError(`invalid input syntax for type integer: "${e.attempt_number}"`);
  if (e.attempt_number < 1)
    throw new StoreError(
      `new row for relation "correction_logs" violates check constraint "correction_logs_attempt_number_check"`,
    );
}

interface AgentConfigRecord {
  agent_id: string;
  config: StoredAgentConfig["config"];
  /** Microseconds. */
  updated_at: number;
}

export function memoryAgentConfig(): AgentConfigRepository {
  const table = new Map<string, AgentConfigRecord>();
  const row = (r: AgentConfigRecord): StoredAgentConfig => ({
    agent_id: r.agent_id,
    config: { ...r.config },
    updated_at: isoAt(r.updated_at),
  });
  const find = async (agentId: string) => {
    const r = table.get(agentId);
    return r && row(r);
  };
  return {
    async get(agentId) {
      return (await find(agentId))?.config ?? { ...DEFAULT_CORRECTION_SETTINGS };
    },
    find,
    async set(agentId, input) {
      const patch = validAgentConfigPatch(agentId, input);
      const config = { ...(table.get(agentId)?.config ?? DEFAULT_CORRECTION_SETTINGS) };
      for (const key of AGENT_CONFIG_KEYS) {
        const value = patch[key];
        if (value === undefined) continue;
        // Thresholds are `real` columns; counts `integer`; toggles `boolean`.
        (config as Record<string, unknown>)[key] =
          typeof value === "number" ? storedNumber(key, value) : value;
      }
      const r: AgentConfigRecord = { agent_id: agentId, config, updated_at: clock() };
      table.set(agentId, r);
      return row(r);
    },
    async list() {
      return [...table.values()].sort((a, b) => compareText(a.agent_id, b.agent_id)).map(row);
    },
  };
}

/** The keys whose column is `integer` (whole numbers in the schema); every other number is `real`. */
const INTEGER_KEYS = new Set(
  AGENT_CONFIG_KEYS.filter((key) => {
    const field = CorrectionSettingsSchema.shape[key].removeDefault();
    return field instanceof z.ZodNumber && field.isInt;
  }),
);

function storedNumber(key: keyof CorrectionSettings, value: number): number {
  return INTEGER_KEYS.has(key) ? value : (real(value) ?? value);
}
