// The search of the in-memory store (`memory://`): the same fields, kinds, orders and query syntax as the SQL
// search (search.ts), matched word by word in JavaScript instead of by PostgreSQL's full-text search.
//
// The differences, all about words: a word here is a run of letters, digits and underscores, compared without
// case, where PostgreSQL's parser also knows e-mail addresses, URLs, file paths and numbers with signs or
// dots as single words ("agent-1" is 'agent' '-1' there, 'agent' '1' here; both match the query "agent-1"),
// and reads HTML tags as no words and skips what is between <script> and </script> or <style> and </style>.
// Messages are ranked by how often the query's words occur (PostgreSQL: ts_rank_cd, which also weighs how
// close together they are), then newest first; every match is ranked (a store in memory is small). Transcript
// messages and reasonings are matched and ranked by the very function the SQL stores use (rankTextHits); only
// the SQL stores bound how many they read.

import { compareText, isoAt, jsonOut } from "./memory-columns.ts";
import type { EvaluationRecord, RunRecord } from "./memory-runs.ts";
import { type ScoreTable, scoreRow } from "./memory-scores.ts";
import {
  checkedSearch,
  groupOf,
  type KeptTranscript,
  keptMessages,
  type MessageHit,
  type ParsedSearchQuery,
  personaText,
  type ReasoningHit,
  type RunHit,
  rankTextHits,
  reasoningCandidate,
  type SearchRepository,
  type SessionHit,
  searchResults,
  searchWords,
  snippetOf,
  type TextCandidate,
  transcriptCandidates,
  wordsMatch,
} from "./search.ts";

/** The columns of the memory store's agent and message records that search reads. */
export interface SearchableAgent {
  id: string;
  name: string;
  /** jsonb text. */
  persona: string;
}

export interface SearchableMessage {
  source: string;
  id: string;
  sender: string;
  channel: string;
  recipient: string | null;
  text: string;
  /** Microseconds. */
  at: number;
}

export interface MemorySearchTables {
  agents: ReadonlyMap<string, SearchableAgent>;
  runs: ReadonlyMap<string, RunRecord>;
  evaluations: ReadonlyMap<string, EvaluationRecord>;
  messages: ReadonlyMap<string, SearchableMessage>;
  scores: ScoreTable;
}

/** Newest first, then by id descending: the SQL lists' order. */
const newestFirst = (a: { created_at: number; id: string }, b: { created_at: number; id: string }) =>
  b.created_at - a.created_at || compareText(b.id, a.id);

export function memorySearch(tables: MemorySearchTables): SearchRepository {
  return {
    async query(query) {
      const { q, limit, kinds, parsed, idRange } = checkedSearch(query);
      const lower = q.toLowerCase();
      const inRange = (id: string) => idRange !== undefined && id >= idRange.from && id <= idRange.to;
      const named = new Set(
        [...tables.agents.values()]
          .filter((a) => a.id.toLowerCase() === lower || a.name.toLowerCase() === lower)
          .map((a) => a.id),
      );
      const wanted = new Set(kinds);
      return searchResults(q, kinds, {
        agents: wanted.has("agent") ? searchAgents(tables, lower, parsed, limit) : undefined,
        runs: wanted.has("run")
          ? groupOf(
              [...tables.runs.values()]
                .filter((r) => inRange(r.id) || named.has(r.agent_id))
                .sort(newestFirst)
                .slice(0, limit + 1)
                .map(
                  (r): RunHit => ({
                    id: r.id,
                    agent_id: r.agent_id,
                    agent_name: tables.agents.get(r.agent_id)?.name ?? null,
                    status: r.status,
                    overall_score: r.overall_score,
                    created_at: isoAt(r.created_at),
                  }),
                ),
              limit,
            )
          : undefined,
        sessions: wanted.has("session")
          ? groupOf(
              [...tables.evaluations.values()]
                .filter(
                  (e) =>
                    e.kind === "session" &&
                    (inRange(e.id) ||
                      e.agents.some((a) => a === q || named.has(a)) ||
                      e.source.toLowerCase().includes(lower)),
                )
                .sort(newestFirst)
                .slice(0, limit + 1)
                .map(
                  (e): SessionHit => ({
                    id: e.id,
                    agents: [...e.agents],
                    source: e.source,
                    status: e.status,
                    created_at: isoAt(e.created_at),
                  }),
                ),
              limit,
            )
          : undefined,
        messages: wanted.has("message") ? searchMessages(tables, parsed, limit) : undefined,
        transcripts: wanted.has("transcript")
          ? rankTextHits(transcriptCandidates(keptTranscripts(tables), parsed).candidates, parsed, limit)
          : undefined,
        reasonings: wanted.has("reasoning")
          ? rankTextHits(reasoningCandidates(tables), parsed, limit)
          : undefined,
      });
    },
  };
}

function searchAgents(
  { agents }: MemorySearchTables,
  lower: string,
  parsed: ParsedSearchQuery,
  limit: number,
) {
  const hits = [...agents.values()].flatMap((a) => {
    const persona = personaText(jsonOut(a.persona));
    const words = searchWords(`${a.id} ${a.name} ${persona}`);
    if (!a.id.toLowerCase().startsWith(lower) && !wordsMatch(words, parsed)) return [];
    const exact = a.id.toLowerCase() === lower || a.name.toLowerCase() === lower;
    const looked = new Set(parsed.positive);
    return [{ a, persona, exact, rank: words.filter((w) => looked.has(w)).length }];
  });
  hits.sort((x, y) => Number(y.exact) - Number(x.exact) || y.rank - x.rank || compareText(x.a.id, y.a.id));
  return groupOf(
    hits.slice(0, limit + 1).map(({ a, persona }) => ({
      id: a.id,
      name: a.name,
      snippet: snippetOf(persona, parsed.positive),
    })),
    limit,
  );
}

function searchMessages({ agents, messages }: MemorySearchTables, parsed: ParsedSearchQuery, limit: number) {
  const looked = new Set(parsed.positive);
  const hits = [...messages.values()].flatMap((m) => {
    const words = searchWords(m.text);
    return wordsMatch(words, parsed) ? [{ m, rank: words.filter((w) => looked.has(w)).length }] : [];
  });
  hits.sort(
    (x, y) =>
      y.rank - x.rank ||
      y.m.at - x.m.at ||
      compareText(x.m.source, y.m.source) ||
      compareText(x.m.id, y.m.id),
  );
  return groupOf(
    hits.slice(0, limit + 1).map(
      ({ m }): MessageHit => ({
        source: m.source,
        id: m.id,
        sender: m.sender,
        channel: m.channel,
        ...(m.recipient === null ? {} : { recipient: m.recipient }),
        at: isoAt(m.at),
        text: m.text,
        snippet: snippetOf(m.text, parsed.positive),
        sender_is_agent: agents.has(m.sender),
      }),
    ),
    limit,
  );
}

/** Every persona evaluation's kept transcript, as the SQL stores read the newest. */
function keptTranscripts({ evaluations, runs }: MemorySearchTables): KeptTranscript[] {
  return [...evaluations.values()].flatMap((e) => {
    if (e.kind !== "persona" || e.input === null) return [];
    const messages = keptMessages(jsonOut(e.input));
    if (messages.length === 0) return [];
    return [
      {
        evaluation_id: e.id,
        created_at: isoAt(e.created_at),
        messages,
        runs: [...runs.values()].filter((r) => r.evaluation_id === e.id),
      },
    ];
  });
}

/** Every persona evaluation's verdicts with a run that did not error, as the SQL reads them. */
function reasoningCandidates({ evaluations, scores }: MemorySearchTables) {
  const candidates: TextCandidate<Omit<ReasoningHit, "snippet">>[] = [];
  for (const [evaluationId, rows] of scores) {
    const evaluation = evaluations.get(evaluationId);
    if (evaluation?.kind !== "persona") continue;
    for (const [key, text] of rows) {
      const row = scoreRow(evaluation.id, key, text);
      if (row.evaluation_run_id === null || row.status === "errored") continue;
      candidates.push(
        reasoningCandidate(
          { ...row, run_id: row.evaluation_run_id, status: row.status },
          isoAt(evaluation.created_at),
        ),
      );
    }
  }
  return candidates;
}
