// Evaluations and runs of the in-memory store: the SQL repositories' rows, orders, filters and lifecycle,
// held in maps. Rows go out as fresh objects (JSON columns parsed anew), so callers cannot reach stored state.
import { randomUUID } from "node:crypto";
import { StoreError, type TokenUsage } from "../core/index.ts";
import { isUuid } from "./columns.ts";
import type {
  CacheStats,
  EvaluationKind,
  EvaluationOutcome,
  EvaluationRepository,
  EvaluationRow,
  RerunCacheStats,
} from "./evaluations.ts";
import {
  COMPLETE,
  FAIL,
  finishOnceInProcess,
  INTERRUPT,
  type LifecycleStatus,
  START,
  type Transition,
  transitionRefused,
} from "./lifecycle.ts";
import {
  clock,
  compareText,
  isoAt,
  isoAtOrNull,
  jsonbText,
  jsonOut,
  real,
  timestampIn,
  timestampInOrNull,
} from "./memory-columns.ts";
import {
  agentMatches,
  type DimensionScores,
  type HistoryPoint,
  type RunJudge,
  type RunRepository,
  type RunRow,
} from "./runs.ts";
import { documentOf } from "./stored-document.ts";

export interface EvaluationRecord {
  id: string;
  kind: EvaluationKind;
  status: LifecycleStatus;
  source: string;
  config: string;
  agents: string[];
  propositions_hash: string | null;
  errored: number;
  token_usage: string | null;
  cache: string | null;
  error: string | null;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  /** JSON text as given (a text column, not jsonb: key order kept). */
  input: string | null;
  result: string | null;
  fingerprint: string | null;
  cache_generation: number | null;
  rerun_cache: string | null;
}

export interface RunRecord {
  id: string;
  agent_id: string;
  status: LifecycleStatus;
  dimensions: string[];
  window_start: number | null;
  window_end: number | null;
  sample_size: number;
  overall_score: number | null;
  is_baseline: boolean;
  token_usage: string | null;
  created_at: number;
  completed_at: number | null;
  evaluation_id: string | null;
  trial: number;
  errored: number;
  judge: string | null;
  propositions_hash: string | null;
  persona_hash: string | null;
  started_at: number | null;
  error: string | null;
  cache: string | null;
  dimension_scores: string | null;
}

const evaluationRow = (r: EvaluationRecord): EvaluationRow => ({
  id: r.id,
  kind: r.kind,
  status: r.status,
  source: r.source,
  config: jsonOut<Record<string, unknown>>(r.config)!,
  agents: [...r.agents],
  propositions_hash: r.propositions_hash,
  errored: r.errored,
  token_usage: jsonOut<TokenUsage>(r.token_usage),
  cache: jsonOut<CacheStats>(r.cache),
  error: r.error,
  created_at: isoAt(r.created_at),
  started_at: isoAtOrNull(r.started_at),
  completed_at: isoAtOrNull(r.completed_at),
});

const runRow = (r: RunRecord): RunRow => ({
  id: r.id,
  agent_id: r.agent_id,
  status: r.status,
  dimensions: [...r.dimensions],
  window_start: isoAtOrNull(r.window_start),
  window_end: isoAtOrNull(r.window_end),
  sample_size: r.sample_size,
  overall_score: r.overall_score,
  is_baseline: r.is_baseline,
  token_usage: jsonOut<TokenUsage>(r.token_usage),
  created_at: isoAt(r.created_at),
  completed_at: isoAtOrNull(r.completed_at),
  evaluation_id: r.evaluation_id,
  trial: r.trial,
  errored: r.errored,
  judge: jsonOut<RunJudge>(r.judge),
  propositions_hash: r.propositions_hash,
  persona_hash: r.persona_hash,
  started_at: isoAtOrNull(r.started_at),
  error: r.error,
  cache: jsonOut<CacheStats>(r.cache),
  dimension_scores: jsonOut<DimensionScores>(r.dimension_scores),
});

/** Newest first, as `ORDER BY created_at DESC, id DESC`. */
const newestFirst = (a: { created_at: number; id: string }, b: { created_at: number; id: string }) =>
  b.created_at - a.created_at || compareText(b.id, a.id);

type RunKey = Pick<RunRecord, "created_at" | "trial" | "id">;

/** As `ORDER BY created_at DESC, trial DESC, id DESC`. */
const newestRunFirst = (a: RunKey, b: RunKey) =>
  b.created_at - a.created_at || b.trial - a.trial || compareText(b.id, a.id);

/** `since`…`until` (inclusive) on created_at, as the SQL compares timestamptz. */
const createdIn = (since: string | undefined, until: string | undefined) => {
  const from = timestampInOrNull(since);
  const to = timestampInOrNull(until);
  return (r: { created_at: number }) =>
    (from === null || r.created_at >= from) && (to === null || r.created_at <= to);
};

/** LIMIT: none when undefined. */
const limited = <T>(rows: T[], limit: number | undefined): T[] =>
  limit === undefined ? rows : rows.slice(0, limit);

/** A lifecycle move, allowed exactly as the SQL `transition` allows it, with the same errors. */
function move<R extends { status: LifecycleStatus }>(
  table: ReadonlyMap<string, R>,
  what: "evaluation" | "run",
  id: string,
  { from, to }: Transition,
  apply: (row: R, now: number) => void,
): R {
  const row = isUuid(id) ? table.get(id.toLowerCase()) : undefined;
  if (!row || !from.includes(row.status)) throw transitionRefused(what, id, row?.status, to);
  row.status = to;
  apply(row, clock());
  return row;
}

/** Looks a row up by a uuid id as a uuid column would (any case; anything else matches nothing). */
function byUuid<R>(table: ReadonlyMap<string, R>, id: string): R | undefined {
  return isUuid(id) ? table.get(id.toLowerCase()) : undefined;
}

export function memoryEvaluations(table: Map<string, EvaluationRecord>): EvaluationRepository {
  const held = new Set<string>();
  const outcome = (r: EvaluationRecord, o: EvaluationOutcome = {}) => {
    r.errored = o.errored ?? r.errored;
    r.rerun_cache = jsonbText(o.rerun_cache) ?? r.rerun_cache;
    r.token_usage = jsonbText(o.token_usage) ?? r.token_usage;
    r.cache = jsonbText(o.cache) ?? r.cache;
    r.result = o.result === undefined || o.result === null ? r.result : JSON.stringify(o.result);
  };
  const document = (id: string, column: "input" | "result") => documentOf(byUuid(table, id)?.[column]);
  return {
    async create({
      kind = "persona",
      source,
      config = {},
      propositions_hash,
      agents = [],
      input,
      fingerprint,
      cache_generation,
    }) {
      const r: EvaluationRecord = {
        id: randomUUID(),
        kind,
        status: "pending",
        source,
        config: jsonbText(config)!,
        agents: [...new Set(agents)],
        propositions_hash: propositions_hash ?? null,
        errored: 0,
        token_usage: null,
        cache: null,
        error: null,
        created_at: clock(),
        started_at: null,
        completed_at: null,
        input: input === undefined || input === null ? null : JSON.stringify(input),
        result: null,
        fingerprint: fingerprint ?? null,
        cache_generation: cache_generation ?? null,
        rerun_cache: null,
      };
      table.set(r.id, r);
      return evaluationRow(r);
    },
    start: async (id) =>
      evaluationRow(
        move(table, "evaluation", id, START, (r, now) => {
          r.started_at = now;
          r.completed_at = null;
          r.error = null;
        }),
      ),
    interrupt: async (id) =>
      evaluationRow(move(table, "evaluation", id, INTERRUPT, (r, now) => void (r.completed_at = now))),
    complete: async (id, o) =>
      evaluationRow(
        move(table, "evaluation", id, COMPLETE, (r, now) => {
          outcome(r, o);
          r.completed_at = now;
        }),
      ),
    fail: async (id, error, o) =>
      evaluationRow(
        move(table, "evaluation", id, FAIL, (r, now) => {
          outcome(r, o);
          r.error = error;
          r.completed_at = now;
        }),
      ),
    async get(id) {
      const r = byUuid(table, id);
      return r && evaluationRow(r);
    },
    input: async (id) => document(id, "input"),
    result: async (id) => document(id, "result"),
    async reusable({ kind, fingerprint, generation }) {
      const rows = [...table.values()].filter((r) => {
        const cache = jsonOut<CacheStats>(r.cache);
        return (
          r.fingerprint === fingerprint &&
          r.kind === kind &&
          r.status === "completed" &&
          r.cache_generation === generation &&
          r.errored === 0 &&
          r.result !== null &&
          ((cache?.misses === 0 && cache.hits > 0) || r.rerun_cache !== null)
        );
      });
      const r = rows.sort(newestFirst)[0];
      return r && { ...evaluationRow(r), rerun_cache: jsonOut<RerunCacheStats>(r.rerun_cache) };
    },
    async finishOnce(id, scope, finish) {
      if (!isUuid(id)) return undefined;
      return finishOnceInProcess(
        held,
        `dramaturg:${scope}:${id.toLowerCase()}`,
        async () => byUuid(table, id)?.status,
        finish,
      );
    },
    async setUsage(id, { token_usage, cache }) {
      const r = byUuid(table, id);
      if (!r) return;
      r.token_usage = jsonbText(token_usage);
      r.cache = jsonbText(cache);
    },
    async latestIncomplete(kind) {
      const rows = [...table.values()].filter((r) => r.kind === kind && r.status !== "completed");
      const r = rows.sort(newestFirst)[0];
      return r && evaluationRow(r);
    },
    async list({ kind, status, agent, since, until, after, limit = 50 } = {}) {
      if (after !== undefined && !isUuid(after.id)) return [];
      const inRange = createdIn(since, until);
      const cursor =
        after &&
        (byUuid(table, after.id) ?? {
          created_at: timestampIn(after.created_at),
          id: after.id.toLowerCase(),
        });
      const rows = [...table.values()].filter(
        (r) =>
          (kind === undefined || r.kind === kind) &&
          (status === undefined || r.status === status) &&
          (agent === undefined || r.agents.includes(agent)) &&
          inRange(r) &&
          (cursor === undefined || newestFirst(cursor, r) < 0),
      );
      return limited(rows.sort(newestFirst), limit).map(evaluationRow);
    },
  };
}

export function memoryRuns(
  table: Map<string, RunRecord>,
  evaluations: ReadonlyMap<string, EvaluationRecord>,
  /** A stored agent's name and persona hash; undefined when there is no such agent. */
  agentOf: (agent: string) => { name: string; persona_hash: string } | undefined,
): RunRepository {
  const runMove = (id: string, rule: Transition, apply: (r: RunRecord, now: number) => void) =>
    runRow(move(table, "run", id, rule, apply));
  return {
    async create(run) {
      const agentHash = agentOf(run.agent_id)?.persona_hash;
      if (agentHash === undefined)
        throw new StoreError(`run of agent ${run.agent_id}: there is no such agent (foreign key violation)`);
      const evaluation_id = run.evaluation_id ?? null;
      if (evaluation_id !== null && !byUuid(evaluations, evaluation_id))
        throw new StoreError(
          `run of evaluation ${evaluation_id}: there is no such evaluation (foreign key violation)`,
        );
      const r: RunRecord = {
        id: randomUUID(),
        agent_id: run.agent_id,
        status: "pending",
        dimensions: [...run.dimensions],
        window_start: timestampInOrNull(run.window_start),
        window_end: timestampInOrNull(run.window_end),
        sample_size: run.sample_size,
        overall_score: null,
        is_baseline: false,
        token_usage: null,
        created_at: clock(),
        completed_at: null,
        evaluation_id: evaluation_id?.toLowerCase() ?? null,
        trial: run.trial ?? 1,
        errored: 0,
        judge: jsonbText(run.judge),
        propositions_hash: run.propositions_hash ?? null,
        persona_hash: run.persona_hash ?? agentHash,
        started_at: null,
        error: null,
        cache: null,
        dimension_scores: null,
      };
      table.set(r.id, r);
      return runRow(r);
    },
    start: async (id) =>
      runMove(id, START, (r, now) => {
        r.started_at = now;
        r.completed_at = null;
        r.error = null;
      }),
    complete: async (id, o) =>
      runMove(id, COMPLETE, (r, now) => {
        r.overall_score = real(o.overall_score);
        r.dimension_scores = jsonbText(o.dimension_scores);
        r.errored = o.errored ?? r.errored;
        r.token_usage = jsonbText(o.token_usage) ?? r.token_usage;
        r.cache = jsonbText(o.cache) ?? r.cache;
        r.completed_at = now;
      }),
    interrupt: async (id) => runMove(id, INTERRUPT, (r, now) => void (r.completed_at = now)),
    fail: async (id, error, o = {}) =>
      runMove(id, FAIL, (r, now) => {
        r.error = error;
        r.dimension_scores = jsonbText(o.dimension_scores) ?? r.dimension_scores;
        r.errored = o.errored ?? r.errored;
        r.token_usage = jsonbText(o.token_usage) ?? r.token_usage;
        r.completed_at = now;
      }),
    async get(id) {
      const r = byUuid(table, id);
      return r && runRow(r);
    },
    async list({
      agent,
      agentMatch,
      evaluation,
      status,
      isBaseline,
      dimension,
      since,
      until,
      after,
      limit = 50,
    } = {}) {
      if (evaluation !== undefined && !isUuid(evaluation)) return [];
      if (after !== undefined && !isUuid(after.id)) return [];
      const evaluationId = evaluation?.toLowerCase();
      const matching = (id: string) => {
        const stored = agentOf(id);
        return stored !== undefined && agentMatches({ id, name: stored.name }, agentMatch!);
      };
      const inRange = createdIn(since, until);
      const cursor =
        after &&
        (byUuid(table, after.id) ?? {
          created_at: timestampIn(after.created_at),
          trial: 2147483647,
          id: after.id.toLowerCase(),
        });
      const rows = [...table.values()].filter(
        (r) =>
          (agent === undefined || r.agent_id === agent) &&
          (agentMatch === undefined || matching(r.agent_id)) &&
          (evaluationId === undefined || r.evaluation_id === evaluationId) &&
          (status === undefined || r.status === status) &&
          (isBaseline === undefined || r.is_baseline === isBaseline) &&
          (dimension === undefined || r.dimensions.includes(dimension)) &&
          inRange(r) &&
          (cursor === undefined || newestRunFirst(cursor, r) < 0),
      );
      return limited(rows.sort(newestRunFirst), limit).map(runRow);
    },
    async markBaseline(id) {
      const chosen = byUuid(table, id);
      if (chosen?.status !== "completed")
        throw new StoreError(
          chosen === undefined
            ? `run ${id} does not exist`
            : `run ${id} is ${chosen.status}; only a completed run can be a baseline`,
        );
      // The chosen run and its completed sibling trials become the baseline; every other baseline run of
      // the agent stops being one (the SQL's one UPDATE, row by row).
      const marked: RunRecord[] = [];
      for (const r of table.values()) {
        if (r.agent_id !== chosen.agent_id) continue;
        const sibling = chosen.evaluation_id !== null && r.evaluation_id === chosen.evaluation_id;
        if (!(r.is_baseline || r === chosen || sibling)) continue;
        r.is_baseline = r === chosen || (sibling && r.status === "completed");
        if (r.is_baseline) marked.push(r);
      }
      return marked.map(runRow).sort((a, b) => a.trial - b.trial);
    },
    async history({ agent, dimension, limit, before }) {
      if (before !== undefined && !isUuid(before.id)) return [];
      const cursor =
        before &&
        (byUuid(table, before.id) ?? {
          created_at: timestampIn(before.created_at),
          trial: 2147483647,
          id: before.id.toLowerCase(),
        });
      const points: { r: RunRecord; score: number | null; count: number | null }[] = [];
      for (const r of table.values()) {
        if (r.agent_id !== agent || r.status !== "completed") continue;
        if (cursor !== undefined && newestRunFirst(cursor, r) >= 0) continue;
        if (dimension === undefined) {
          points.push({ r, score: r.overall_score, count: null });
          continue;
        }
        const scores = jsonOut<Record<string, unknown>>(r.dimension_scores);
        if (
          scores === null ||
          typeof scores !== "object" ||
          Array.isArray(scores) ||
          !Object.hasOwn(scores, dimension)
        )
          continue;
        const result = scores[dimension];
        points.push({ r, score: real(field(result, "score")), count: field(result, "count") });
      }
      const recent = limited(
        points.sort((a, b) => newestRunFirst(a.r, b.r)),
        limit ?? undefined,
      );
      return recent
        .sort(
          (a, b) => a.r.created_at - b.r.created_at || a.r.trial - b.r.trial || compareText(a.r.id, b.r.id),
        )
        .map(
          ({ r, score, count }): HistoryPoint => ({
            run_id: r.id,
            evaluation_id: r.evaluation_id,
            trial: r.trial,
            errored: r.errored,
            is_baseline: r.is_baseline,
            judge: jsonOut<RunJudge>(r.judge),
            propositions_hash: r.propositions_hash,
            persona_hash: r.persona_hash,
            created_at: isoAt(r.created_at),
            completed_at: isoAtOrNull(r.completed_at),
            score,
            count,
          }),
        );
    },
  };
}

/** `(doc ->> name)` read as a number: NULL when the document is not an object or the field is missing or null. */
function field(doc: unknown, name: string): number | null {
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) return null;
  const value = (doc as Record<string, unknown>)[name];
  return typeof value === "number" ? value : value === null || value === undefined ? null : Number(value);
}
