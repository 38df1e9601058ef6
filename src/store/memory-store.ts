// The store of `memory://`: every repository of the Store contract, held in this process's memory, with
// no database at all.
//
// Why it exists: `memory://` used to be an in-memory PGlite, a WebAssembly PostgreSQL on a worker thread,
// which cost ≈ 620 ms and ≈ 287 MB peak RSS just to open, on the critical path of every command and test
// that keeps nothing. This store opens in ≈ 1 ms at ≈ 91 MB peak RSS for the whole process (Node and tsx
// included; bench/store-open.bench.ts), and `npm run demo` went from ≈ 340 MB peak RSS to ≈ 117 MB and
// from 1.5–5 s to 0.8–1.9 s on a loaded two-core machine. A score row costs ≈ 525 B of heap beside its
// 372 B of text at 100,000 rows (bench/memory-rows.bench.ts): one JSON tuple per row, see memory-scores.ts.
// It passes the same contract tests as PGlite and PostgreSQL (test/store/backends.ts): the SQL
// repositories' orders, filters, defaults, conflicts, lifecycle transitions and errors, jsonb key order,
// single-precision reals, and rows handed out as fresh copies.
import type { Agent } from "../core/index.ts";
import { StoreError } from "../core/index.ts";
import { type AgentRepository, type AgentRow, personaHash } from "./agents.ts";
import { clock, compareText, isoAt, jsonbText, jsonOut, timestampIn } from "./memory-columns.ts";
import { memoryAgentConfig, memoryCorrectionLogs } from "./memory-corrections.ts";
import { memoryLabels } from "./memory-labels.ts";
import { memoryOnline } from "./memory-online-runs.ts";
import { memoryQueuedJobTotals } from "./memory-queued-job-totals.ts";
import { type EvaluationRecord, memoryEvaluations, memoryRuns, type RunRecord } from "./memory-runs.ts";
import { memoryScoreBatchWriter, memoryScores, type ScoreTable } from "./memory-scores.ts";
import { memorySearch } from "./memory-search.ts";
import { memorySignedOutSessions } from "./memory-signed-out-sessions.ts";
import { memoryVerdictCache } from "./memory-verdict-cache.ts";
import type { MessageRepository, MessageRow } from "./messages.ts";
import { MIGRATIONS } from "./migrations.ts";
import { createScoreWriter, type ScoreBatchWriter } from "./score-writer.ts";
import type { Store } from "./store.ts";

interface AgentRecord {
  id: string;
  name: string;
  /** jsonb text. */
  persona: string;
  persona_hash: string;
  created_at: number;
  updated_at: number;
}

interface MessageRecord {
  source: string;
  id: string;
  sender: string;
  channel: string;
  recipient: string | null;
  text: string;
  /** Microseconds. */
  at: number;
  source_ids: Record<string, string> | null;
}

/** Opens an empty in-memory store: nothing to migrate, nothing kept once the process ends. */
export function openMemoryStore(): Store {
  const openedAt = clock();
  const evaluations = new Map<string, EvaluationRecord>();
  const runs = new Map<string, RunRecord>();
  const agents = new Map<string, AgentRecord>();
  const scores: ScoreTable = new Map();
  const messages = new Map<string, MessageRecord>();
  let closed = false;
  const unguarded = memoryScoreBatchWriter(scores, evaluations, runs);
  // The writer's batches are refused once closed too (the writer itself is made without a call to refuse).
  const writeBatch: ScoreBatchWriter = async (rows, options) => {
    if (closed) throw new StoreError("the store is closed");
    return unguarded(rows, options);
  };
  const store: Store = {
    location: "memory://",
    dialect: "memory",
    agents: memoryAgents(agents),
    messages: memoryMessages(messages),
    evaluations: memoryEvaluations(evaluations),
    runs: memoryRuns(runs, evaluations, (id) => agents.get(id)),
    scores: {
      ...memoryScores(scores, writeBatch, runs),
      writer: (options) => createScoreWriter(writeBatch, options),
    },
    verdictCache: memoryVerdictCache(),
    corrections: memoryCorrectionLogs(),
    agentConfig: memoryAgentConfig(),
    search: memorySearch({ agents, runs, evaluations, messages, scores }),
    labels: memoryLabels(evaluations),
    signedOutSessions: memorySignedOutSessions(),
    queuedJobTotals: memoryQueuedJobTotals(evaluations),
    online: memoryOnline(),
    async migrationStatus() {
      // Nothing to migrate: the store is born at the latest version.
      const latest = MIGRATIONS.at(-1)?.version ?? 0;
      return {
        current: latest,
        latest,
        pending: [],
        applied: MIGRATIONS.map(({ version, name }) => ({ version, name, applied_at: isoAt(openedAt) })),
        changed: [],
      };
    },
    async close() {
      closed = true;
    },
  };
  return guarded(store, () => closed);
}

/** The store with every repository call refusing to run once it is closed, as a closed database does. */
function guarded(store: Store, isClosed: () => boolean): Store {
  const check = () => {
    if (isClosed()) throw new StoreError("the store is closed");
  };
  const wrap = <T extends object>(repository: T): T => {
    const out: Record<string, unknown> = {};
    for (const [name, fn] of Object.entries(repository))
      out[name] =
        typeof fn === "function" && name !== "writer"
          ? async (...args: unknown[]) => {
              check();
              return fn(...args);
            }
          : fn;
    return out as T;
  };
  return {
    ...store,
    agents: wrap(store.agents),
    messages: wrap(store.messages),
    evaluations: wrap(store.evaluations),
    runs: wrap(store.runs),
    scores: wrap(store.scores),
    verdictCache: wrap(store.verdictCache),
    corrections: wrap(store.corrections),
    agentConfig: wrap(store.agentConfig),
    search: wrap(store.search),
    labels: wrap(store.labels),
    signedOutSessions: wrap(store.signedOutSessions),
    queuedJobTotals: wrap(store.queuedJobTotals),
    online: wrap(store.online),
    migrationStatus: wrap({ m: store.migrationStatus }).m,
  };
}

function memoryAgents(table: Map<string, AgentRecord>): AgentRepository {
  const row = (r: AgentRecord): AgentRow => ({
    id: r.id,
    name: r.name,
    persona: jsonOut(r.persona) as AgentRow["persona"],
    persona_hash: r.persona_hash,
    created_at: isoAt(r.created_at),
    updated_at: isoAt(r.updated_at),
  });
  return {
    async upsert(input) {
      const list = Array.isArray(input) ? input : [input as Pick<Agent, "id" | "name" | "persona">];
      if (list.length === 0) return [];
      // The last spelling of an id wins; one `now` for the whole call, as for one statement.
      const byId = new Map(list.map((a) => [a.id, a]));
      const now = clock();
      return [...byId.values()].map((a) => {
        const hash = personaHash(a.persona);
        const persona = jsonbText(a.persona) ?? "null";
        const stored = table.get(a.id);
        if (stored) {
          if (stored.name !== a.name || stored.persona_hash !== hash) stored.updated_at = now;
          stored.name = a.name;
          stored.persona = persona;
          stored.persona_hash = hash;
          return row(stored);
        }
        const r: AgentRecord = {
          id: a.id,
          name: a.name,
          persona,
          persona_hash: hash,
          created_at: now,
          updated_at: now,
        };
        table.set(a.id, r);
        return row(r);
      });
    },
    async get(id) {
      const r = table.get(id);
      return r && row(r);
    },
    async list() {
      return [...table.values()].sort((a, b) => compareText(a.id, b.id)).map(row);
    },
  };
}

function memoryMessages(table: Map<string, MessageRecord>): MessageRepository {
  return {
    async import(source, messages) {
      // Checked whole first, so that a bad timestamp stores nothing of the batch.
      const records = messages.map(
        (m): MessageRecord => ({
          source,
          id: m.id,
          sender: m.sender,
          channel: m.channel,
          recipient: m.recipient ?? null,
          text: m.text,
          at: timestampIn(m.at),
          source_ids: m.source_ids ? { ...m.source_ids } : null,
        }),
      );
      let inserted = 0;
      for (const r of records) {
        const key = `${source}\u0000${r.id}`;
        if (table.has(key)) continue;
        table.set(key, r);
        inserted++;
      }
      return { inserted, skipped: messages.length - inserted };
    },
    async query({ agent, channel, source, from, to, limit } = {}) {
      const after = from === undefined ? undefined : timestampIn(from);
      const before = to === undefined ? undefined : timestampIn(to);
      const rows = [...table.values()].filter(
        (m) =>
          (agent === undefined || m.sender === agent) &&
          (channel === undefined || m.channel === channel) &&
          (source === undefined || m.source === source) &&
          (after === undefined || m.at >= after) &&
          (before === undefined || m.at <= before),
      );
      rows.sort((a, b) => a.at - b.at || compareText(a.source, b.source) || compareText(a.id, b.id));
      return (limit === undefined ? rows : rows.slice(0, limit)).map(
        ({ recipient, at, source_ids, ...rest }): MessageRow => ({
          ...rest,
          ...(recipient === null ? {} : { recipient }),
          at: isoAt(at),
          ...(source_ids === null ? {} : { source_ids: { ...source_ids } }),
        }),
      );
    },
  };
}
