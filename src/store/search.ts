// The dashboard's search box over agents, runs, session analyses and imported messages. On PGlite and
// PostgreSQL the same SQL: PostgreSQL full-text search (`websearch_to_tsquery` with the `simple`
// configuration: no stemming, no stop words, any language) over messages through the GIN index of their stored
// words (migration 11), over agents' names and personas on the fly (they are few); runs and sessions by id prefix,
// agent and source. The messages of evaluated transcripts (kept with their evaluation's input) and the judge's
// reasoning of verdicts have no index: an index on the reasoning cost every verdict write (docs/design/
// performance.md), so the newest are scanned with a substring filter and matched word by word here, in
// JavaScript, by the same function as the memory store's. The memory store (memory-search.ts) evaluates the same
// query syntax word by word.
import { InputError } from "../core/index.ts";
import { iso } from "./columns.ts";
import type { Queryable } from "./db.ts";
import type { LifecycleStatus } from "./lifecycle.ts";
import { documentOf } from "./stored-document.ts";

export const SEARCH_KINDS = ["agent", "run", "session", "message", "transcript", "reasoning"] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** The longest query the search takes (a query is words, not a document). */
export const MAX_SEARCH_QUERY = 200;
/** Hits per kind by default, and at most. */
export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 100;
/**
 * Matching messages ranked per search, at most: the first this many the index yields (in the table's order,
 * roughly the order they were imported). A word in most messages of a large store would otherwise have every
 * one of its rows read and ranked; over bench/server.bench.ts's 100,000 messages on PGlite (two loaded cores,
 * median) 1,000 candidates cost 3-7 ms for a word and 25 ms for a two-word phrase.
 */
export const MESSAGE_CANDIDATES = 1_000;
/**
 * The verdicts whose reasoning a SQL search reads, at most: the newest evaluations' (by creation), since the
 * reasoning has no index (an index cost every verdict write). Over a PGlite store of 10,000 verdicts a rare
 * word costs about 60 ms (docs/design/performance.md).
 */
export const REASONING_SCAN = 10_000;
/** The persona evaluations whose kept transcript a SQL search reads, at most: the newest. */
export const TRANSCRIPT_SCAN = 50;
/** Matching transcript messages or reasonings a SQL search ranks, at most (the first the scan finds). */
export const TEXT_CANDIDATES = 500;

export interface SearchQuery {
  /**
   * Web-search syntax, as `websearch_to_tsquery` reads it: words (all of them must occur), `"a phrase"`,
   * `-word` (must not occur), `or` between alternatives. Case does not matter.
   */
  q: string;
  /** Hits per kind, 1–100; default 20. */
  limit?: number;
  /** The kinds to search; default all. */
  kinds?: readonly SearchKind[];
}

/** A stretch of a snippet; `match` marks the words the query looked for. Plain text, never markup. */
export interface SnippetPart {
  text: string;
  match: boolean;
}

export interface AgentHit {
  id: string;
  name: string;
  /** The persona's text (the string values of a structured persona), around its first match. */
  snippet: SnippetPart[];
}

export interface RunHit {
  id: string;
  agent_id: string;
  /** The agent's display name; null when the agent is no longer stored. */
  agent_name: string | null;
  status: LifecycleStatus;
  overall_score: number | null;
  created_at: string;
}

export interface SessionHit {
  /** The session analysis's evaluation id. */
  id: string;
  agents: string[];
  source: string;
  status: LifecycleStatus;
  created_at: string;
}

export interface MessageHit {
  /** The import batch the message came in; (source, id) is its key. */
  source: string;
  id: string;
  sender: string;
  channel: string;
  recipient?: string;
  at: string;
  /** The whole message. */
  text: string;
  /** The message around its first match, the matched words marked. */
  snippet: SnippetPart[];
  /** Whether the sender is a stored agent (then its page is the message's home). */
  sender_is_agent: boolean;
}

/** A message of a transcript that a persona evaluation judged, as kept with the evaluation. */
export interface TranscriptHit {
  evaluation_id: string;
  /**
   * The run whose page shows the message: the run of its sender (its first trial) when the sender was
   * evaluated, else the evaluation's first run (by agent, then trial); null when the evaluation has no run.
   */
  run_id: string | null;
  /** Whether that run judged the message (its agent sent it). */
  judged: boolean;
  /** The message's id in the transcript. */
  id: string;
  sender: string;
  channel: string;
  recipient?: string;
  text: string;
  snippet: SnippetPart[];
  /** The evaluation's creation time. */
  created_at: string;
}

/** A verdict whose reasoning has the query's words. */
export interface ReasoningHit {
  /** The verdict's id: its row on the run page is `#v-<id>`. */
  id: string;
  evaluation_id: string;
  run_id: string;
  agent_id: string | null;
  dimension: string;
  proposition_id: string;
  message_id: string | null;
  trial: number;
  status: "ok" | "trivial";
  /** The final score (or a count's value: ideas quantity). */
  score: number | null;
  reasoning: string;
  snippet: SnippetPart[];
  /** The evaluation's creation time. */
  created_at: string;
}

/** One kind's hits, best first, and whether there were more than the limit. */
export interface SearchGroup<T> {
  hits: T[];
  more: boolean;
}

export interface SearchResults {
  q: string;
  /** The kinds searched; a kind not searched has an empty group. */
  kinds: SearchKind[];
  /** Agents whose id starts with the query, or whose id, name or persona has its words; exact names first. */
  agents: SearchGroup<AgentHit>;
  /** Runs whose id starts with the query (4+ hex digits) or whose agent's id or name is the query; newest first. */
  runs: SearchGroup<RunHit>;
  /** Session analyses whose id starts with the query, one of whose agents it names, or whose source holds it. */
  sessions: SearchGroup<SessionHit>;
  /**
   * Imported messages with the query's words, by full-text rank (ts_rank_cd) then newest; on SQL stores ranked
   * among the first MESSAGE_CANDIDATES matches (a query matching more says `more`: add words to narrow it).
   */
  messages: SearchGroup<MessageHit>;
  /**
   * Messages of the transcripts persona evaluations judged, with the query's words: the most occurrences first,
   * then the newest evaluation, then in transcript order. SQL stores read the newest TRANSCRIPT_SCAN evaluations.
   */
  transcripts: SearchGroup<TranscriptHit>;
  /**
   * Verdicts whose judge's reasoning has the query's words (errored ones and those without a run left out): the
   * most occurrences first, then the newest evaluation. SQL stores read the newest REASONING_SCAN verdicts.
   */
  reasonings: SearchGroup<ReasoningHit>;
}

export interface SearchRepository {
  /** Searches every kind (or `kinds`). A query with no word to look for is an InputError naming `q`. */
  query(query: SearchQuery): Promise<SearchResults>;
}

/** One item of a query: a word, or a phrase of consecutive words; negated items must not occur. */
export interface SearchTerm {
  words: string[];
  negated: boolean;
}

export interface ParsedSearchQuery {
  /** Alternatives (`or`), each a list of items that must all hold. */
  alternatives: SearchTerm[][];
  /** The words looked for (not negated), lower case: what a snippet marks. */
  positive: string[];
}

/** A word as both backends' matching sees it, near enough: letters, digits and underscores. */
const WORD = /[\p{L}\p{N}_]+/gu;

/** The words of a text, lower case, in order. */
export function searchWords(text: string): string[] {
  return (text.match(WORD) ?? []).map((w) => w.toLowerCase());
}

/**
 * Reads a query in web-search syntax (what `websearch_to_tsquery` accepts). Every alternative must look for
 * at least one word: a query of exclusions alone would match nearly everything, and cannot use an index.
 */
export function parseSearchQuery(q: string): ParsedSearchQuery {
  const alternatives: SearchTerm[][] = [[]];
  // A quoted phrase, or a run of characters up to a space or a quote, each perhaps after a `-`.
  for (const [, minus, phrase, bare] of q.matchAll(/(-?)(?:"([^"]*)"?|([^\s"]+))/g)) {
    if (phrase === undefined && minus === "" && bare?.toLowerCase() === "or") {
      if (alternatives.at(-1)!.length > 0) alternatives.push([]);
      continue;
    }
    const words = searchWords(phrase ?? bare ?? "");
    if (words.length > 0) alternatives.at(-1)!.push({ words, negated: minus === "-" });
  }
  if (alternatives.at(-1)!.length === 0 && alternatives.length > 1) alternatives.pop();
  const positive = [
    ...new Set(alternatives.flatMap((a) => a.filter((t) => !t.negated).flatMap((t) => t.words))),
  ];
  return { alternatives, positive };
}

/** Why a query cannot be searched (a sentence for a 400 naming `q`), or undefined when it can. */
export function searchQueryProblem(q: string): string | undefined {
  if (q.trim() === "") return "expected words to look for";
  if (q.length > MAX_SEARCH_QUERY) return `expected at most ${MAX_SEARCH_QUERY} characters`;
  const { alternatives } = parseSearchQuery(q);
  if (alternatives.some((terms) => !terms.some((t) => !t.negated)))
    return "expected a word to look for (letters or digits) in each alternative, not only -excluded ones";
  return undefined;
}

/** Whether a text's words (from {@link searchWords}) satisfy a parsed query. */
export function wordsMatch(words: readonly string[], query: ParsedSearchQuery): boolean {
  const has = (term: SearchTerm) => {
    if (term.words.length === 1) return words.includes(term.words[0]!);
    for (let i = 0; i + term.words.length <= words.length; i++)
      if (term.words.every((w, k) => words[i + k] === w)) return true;
    return false;
  };
  return query.alternatives.some((terms) => terms.every((t) => has(t) !== t.negated));
}

/** Characters of a snippet: a message is shown whole up to this, else this much around its first match. */
const SNIPPET_CHARS = 240;

/**
 * A text around its first matched word, cut at spaces, with `…` where it was cut, and the matched words
 * marked. Plain text parts: a page escapes them like any other text, so nothing in a message becomes markup.
 */
export function snippetOf(text: string, positive: readonly string[]): SnippetPart[] {
  const looked = new Set(positive);
  const matches: { start: number; end: number }[] = [];
  for (const m of text.matchAll(WORD))
    if (looked.has(m[0].toLowerCase())) matches.push({ start: m.index, end: m.index + m[0].length });
  let from = 0;
  let to = text.length;
  if (text.length > SNIPPET_CHARS) {
    const first = matches[0]?.start ?? 0;
    from = Math.max(0, first - SNIPPET_CHARS / 3);
    if (from > 0) {
      const space = text.indexOf(" ", from);
      from = space === -1 || space >= first ? from : space + 1;
    }
    to = Math.min(text.length, from + SNIPPET_CHARS);
    if (to < text.length) {
      const space = text.lastIndexOf(" ", to);
      to = space > first ? space : to;
    }
  }
  const parts: SnippetPart[] = [];
  const plain = (s: string) => {
    if (s !== "") parts.push({ text: s, match: false });
  };
  if (from > 0) plain("…");
  let at = from;
  for (const { start, end } of matches) {
    if (start < from || end > to) continue;
    plain(text.slice(at, start));
    parts.push({ text: text.slice(start, end), match: true });
    at = end;
  }
  plain(text.slice(at, to));
  if (to < text.length) plain("…");
  // A "…" beside plain text belongs to it: one part each side of the marks.
  return parts.reduce<SnippetPart[]>((out, part) => {
    const last = out.at(-1);
    if (last && !last.match && !part.match) last.text += part.text;
    else out.push({ ...part });
    return out;
  }, []);
}

/** A persona as text: itself when free text, else its string values in order. */
export function personaText(persona: unknown): string {
  if (typeof persona === "string") return persona;
  const out: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === "string") out.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === "object") Object.values(value).forEach(walk);
  };
  walk(persona);
  return out.join(" · ");
}

/**
 * The uuid range of an id prefix (4 to 32 hex digits, hyphens where a uuid has them or none), so that a
 * run or session is found by the first characters of its id through the primary key.
 */
export function uuidPrefixRange(q: string): { from: string; to: string } | undefined {
  const text = q.trim().toLowerCase();
  if (!/^[0-9a-f-]{4,36}$/.test(text)) return undefined;
  const hex = text.replaceAll("-", "");
  const uuid = (h: string) =>
    `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  // The hyphens typed must be where a uuid has them (positions 8, 13, 18, 23).
  if (hex.length < 4 || hex.length > 32 || !uuid(hex.padEnd(32, "0")).startsWith(text)) return undefined;
  return { from: uuid(hex.padEnd(32, "0")), to: uuid(hex.padEnd(32, "f")) };
}

/** The checked query: trimmed, within bounds, with a word to look for; else an InputError naming `q`. */
export function checkedSearch({ q, limit = DEFAULT_SEARCH_LIMIT, kinds }: SearchQuery) {
  const problem = searchQueryProblem(q);
  if (problem) throw new InputError(problem, { place: "q" });
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT)
    throw new InputError(`expected a whole number from 1 to ${MAX_SEARCH_LIMIT}`, { place: "limit" });
  const text = q.trim();
  return {
    q: text,
    limit,
    kinds: SEARCH_KINDS.filter((k) => kinds === undefined || kinds.includes(k)),
    parsed: parseSearchQuery(text),
    idRange: uuidPrefixRange(text),
  };
}

const empty = <T>(): SearchGroup<T> => ({ hits: [], more: false });

/** The first `limit` rows, and whether there were more (the queries ask for one more than the limit). */
export function groupOf<T>(rows: T[], limit: number): SearchGroup<T> {
  return { hits: rows.slice(0, limit), more: rows.length > limit };
}

/** Results with empty groups for the kinds not searched. */
export function searchResults(
  q: string,
  kinds: SearchKind[],
  groups: Partial<Omit<SearchResults, "q" | "kinds">>,
): SearchResults {
  return {
    q,
    kinds,
    agents: groups.agents ?? empty(),
    runs: groups.runs ?? empty(),
    sessions: groups.sessions ?? empty(),
    messages: groups.messages ?? empty(),
    transcripts: groups.transcripts ?? empty(),
    reasonings: groups.reasonings ?? empty(),
  };
}

/** A transcript message or a reasoning that may match, as both backends gather them: ranked here alike. */
export interface TextCandidate<T> {
  text: string;
  /** The evaluation's creation time (ISO) and id: newer first among equal ranks. */
  created_at: string;
  evaluation_id: string;
  /** Within one evaluation: transcript order, or the verdict's agent, trial, dimension, proposition, target. */
  order: readonly (string | number)[];
  hit: T;
}

const codeUnitOrder = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The candidates that match the query, best first (the query's words most often, then the newest evaluation,
 * then in order within it), `limit` of them and whether there were more. The same function on every backend,
 * so that they match and rank alike whatever gathered the candidates.
 */
export function rankTextHits<T>(
  candidates: readonly TextCandidate<T>[],
  parsed: ParsedSearchQuery,
  limit: number,
  more = false,
): SearchGroup<T & { snippet: SnippetPart[] }> {
  const looked = new Set(parsed.positive);
  const matched = candidates.flatMap((c) => {
    const words = searchWords(c.text);
    return wordsMatch(words, parsed) ? [{ c, rank: words.filter((w) => looked.has(w)).length }] : [];
  });
  matched.sort(
    (x, y) =>
      y.rank - x.rank ||
      codeUnitOrder(y.c.created_at, x.c.created_at) ||
      codeUnitOrder(y.c.evaluation_id, x.c.evaluation_id) ||
      x.c.order.reduce<number>((d, v, i) => d || codeUnitOrder(v, y.c.order[i] ?? ""), 0),
  );
  const group = groupOf(
    matched.slice(0, limit + 1).map(({ c }) => ({ ...c.hit, snippet: snippetOf(c.text, parsed.positive) })),
    limit,
  );
  return more && !group.more ? { ...group, more: true } : group;
}

/**
 * The run that shows a transcript message of an evaluation: its sender's first trial, else the evaluation's
 * first run (by agent, then trial). `runs` are the evaluation's.
 */
export function runOfMessage(
  runs: readonly { id: string; agent_id: string; trial: number }[],
  sender: string,
): { run_id: string | null; judged: boolean } {
  const ordered = [...runs].sort(
    (a, b) => codeUnitOrder(a.agent_id, b.agent_id) || a.trial - b.trial || codeUnitOrder(a.id, b.id),
  );
  const own = ordered.find((r) => r.agent_id === sender);
  return own ? { run_id: own.id, judged: true } : { run_id: ordered[0]?.id ?? null, judged: false };
}

/**
 * Per alternative of the query, its wanted words written in ASCII, once each: what a substring test of a text's
 * lower case can require (a word in another script may change under `lower()`), necessary for a match.
 */
function asciiAlternatives(parsed: ParsedSearchQuery): string[][] {
  return parsed.alternatives.map((terms) => [
    ...new Set(terms.filter((t) => !t.negated).flatMap((t) => t.words.filter((w) => /^[a-z0-9_]+$/.test(w)))),
  ]);
}

/**
 * A SQL condition that a text holds the query's words as substrings, whatever the case, for the words written in
 * ASCII (`lower()` in some collations changes only those): necessary for a match, not sufficient; rankTextHits
 * decides. Parameters from `$first`; an alternative with no such word lets every text through.
 */
export function substringFilter(
  column: string,
  parsed: ParsedSearchQuery,
  first: number,
): { sql: string; params: string[] } {
  const params: string[] = [];
  const alternatives = asciiAlternatives(parsed).map((words) => {
    if (words.length === 0) return "true";
    return `(${words.map((w) => `strpos(lower(${column}), $${first + params.push(w) - 1}) > 0`).join(" AND ")})`;
  });
  // A parameter the statement does not use has no type, which PostgreSQL refuses.
  return alternatives.includes("true")
    ? { sql: "true", params: [] }
    : { sql: alternatives.join(" OR "), params };
}

// The tsquery of the query text ($1). Its querytree is 'T' when nothing in it can use an index (checked
// before it gets here, and again here: such a query would read and parse every message).
const TSQUERY = "websearch_to_tsquery('simple', $1)";

/** Agents named by the query: its id or display name, whole, whatever the case. */
const NAMED_AGENTS = "SELECT id FROM agents WHERE lower(id) = lower($1) OR lower(name) = lower($1)";

export function searchRepository(db: Queryable): SearchRepository {
  const readTranscripts = keptTranscripts(db);
  return {
    async query(query) {
      const { q, limit, kinds, parsed, idRange } = checkedSearch(query);
      const wanted = new Set(kinds);
      const [agents, runs, sessions, messages, transcripts, reasonings] = await Promise.all([
        wanted.has("agent") ? searchAgents(db, q, limit, parsed.positive) : undefined,
        wanted.has("run") ? searchRuns(db, q, limit, idRange) : undefined,
        wanted.has("session") ? searchSessions(db, q, limit, idRange) : undefined,
        wanted.has("message") ? searchMessages(db, q, limit, parsed.positive) : undefined,
        wanted.has("transcript")
          ? readTranscripts().then((kept) => {
              const { candidates, more } = transcriptCandidates(kept, parsed, TEXT_CANDIDATES);
              return rankTextHits(candidates, parsed, limit, more);
            })
          : undefined,
        wanted.has("reasoning") ? searchReasonings(db, parsed, limit) : undefined,
      ]);
      return searchResults(q, kinds, { agents, runs, sessions, messages, transcripts, reasonings });
    },
  };
}

async function searchAgents(db: Queryable, q: string, limit: number, positive: string[]) {
  const result = await db.query<{ id: string; name: string; persona: unknown }>(
    `SELECT id, name, persona
       FROM agents, ${TSQUERY} AS query,
            LATERAL (SELECT to_tsvector('simple', id || ' ' || name)
                            || jsonb_to_tsvector('simple', persona, '["string"]') AS words) AS d
      WHERE starts_with(lower(id), lower($1)) OR (querytree(query) <> 'T' AND words @@ query)
      ORDER BY (lower(id) = lower($1) OR lower(name) = lower($1)) DESC, ts_rank_cd(words, query) DESC, id
      LIMIT $2`,
    [q, limit + 1],
  );
  return groupOf(
    result.rows.map((r) => ({
      id: r.id,
      name: r.name,
      snippet: snippetOf(personaText(r.persona), positive),
    })),
    limit,
  );
}

interface RawRun {
  id: string;
  agent_id: string;
  agent_name: string | null;
  status: LifecycleStatus;
  overall_score: number | null;
  created_at: Date | string;
}

async function searchRuns(db: Queryable, q: string, limit: number, idRange?: { from: string; to: string }) {
  const result = await db.query<RawRun>(
    `SELECT r.id, r.agent_id, a.name AS agent_name, r.status, r.overall_score, r.created_at
       FROM evaluation_runs r LEFT JOIN agents a ON a.id = r.agent_id
      WHERE r.id BETWEEN $2::uuid AND $3::uuid OR r.agent_id IN (${NAMED_AGENTS})
      ORDER BY r.created_at DESC, r.id DESC
      LIMIT $4`,
    [q, idRange?.from ?? null, idRange?.to ?? null, limit + 1],
  );
  return groupOf(
    result.rows.map((r) => ({ ...r, created_at: iso(r.created_at) })),
    limit,
  );
}

interface RawSession {
  id: string;
  agents: string[];
  source: string;
  status: LifecycleStatus;
  created_at: Date | string;
}

async function searchSessions(
  db: Queryable,
  q: string,
  limit: number,
  idRange?: { from: string; to: string },
) {
  const result = await db.query<RawSession>(
    `SELECT id, agents, source, status, created_at
       FROM evaluations
      WHERE kind = 'session'
        AND (id BETWEEN $2::uuid AND $3::uuid
             OR agents && (ARRAY[$1::text] || ARRAY(${NAMED_AGENTS}))
             OR strpos(lower(source), lower($1)) > 0)
      ORDER BY created_at DESC, id DESC
      LIMIT $4`,
    [q, idRange?.from ?? null, idRange?.to ?? null, limit + 1],
  );
  return groupOf(
    result.rows.map((r) => ({ ...r, created_at: iso(r.created_at) })),
    limit,
  );
}

interface RawMessage {
  source: string;
  id: string;
  sender: string;
  channel: string;
  recipient: string | null;
  text: string;
  at: Date | string;
  sender_is_agent: boolean;
}

/**
 * The message search: $1 the query, $2 how many, $3 MESSAGE_CANDIDATES. The candidates come straight from the
 * GIN index of `text_words` (migration 11), unsorted, at most $3 of them; only those are ranked.
 */
export const MESSAGE_SEARCH = `WITH candidates AS (
       SELECT m.source, m.id, m.sender, m.channel, m.recipient, m.text, m.at, m.text_words
         FROM run_messages m
        WHERE querytree(${TSQUERY}) <> 'T' AND m.text_words @@ ${TSQUERY}
        LIMIT $3)
     SELECT c.source, c.id, c.sender, c.channel, c.recipient, c.text, c.at,
            EXISTS (SELECT 1 FROM agents a WHERE a.id = c.sender) AS sender_is_agent
       FROM candidates c
      ORDER BY ts_rank_cd(c.text_words, ${TSQUERY}) DESC, c.at DESC, c.source, c.id
      LIMIT $2`;

async function searchMessages(db: Queryable, q: string, limit: number, positive: string[]) {
  const result = await db.query<RawMessage>(MESSAGE_SEARCH, [q, limit + 1, MESSAGE_CANDIDATES]);
  return groupOf(
    result.rows.map(
      (m): MessageHit => ({
        source: m.source,
        id: m.id,
        sender: m.sender,
        channel: m.channel,
        ...(m.recipient === null ? {} : { recipient: m.recipient }),
        at: iso(m.at),
        text: m.text,
        snippet: snippetOf(m.text, positive),
        sender_is_agent: m.sender_is_agent,
      }),
    ),
    limit,
  );
}

/** A message of a kept transcript, as search reads it. */
export interface KeptMessage {
  id: string;
  sender: string;
  channel: string;
  recipient?: string;
  text: string;
}

/** The messages of a persona evaluation's input (`transcript.messages`), those with the fields search shows. */
export function keptMessages(input: unknown): KeptMessage[] {
  const messages = (input as { transcript?: { messages?: unknown } } | null | undefined)?.transcript
    ?.messages;
  if (!Array.isArray(messages)) return [];
  return messages.flatMap((m: Record<string, unknown> | null) => {
    const field = (name: string) => (typeof m?.[name] === "string" ? (m[name] as string) : undefined);
    const [id, sender, channel, text, recipient] = ["id", "sender", "channel", "text", "recipient"].map(
      field,
    );
    if (id === undefined || sender === undefined || channel === undefined || text === undefined) return [];
    return [{ id, sender, channel, text, ...(recipient === undefined ? {} : { recipient }) }];
  });
}

/** A persona evaluation's kept transcript, and its runs (what a message links to). */
export interface KeptTranscript {
  evaluation_id: string;
  /** ISO. */
  created_at: string;
  messages: readonly KeptMessage[];
  runs: readonly { id: string; agent_id: string; trial: number }[];
}

/**
 * The candidates of the transcript search: the messages whose lower-case text holds the query's ASCII words (a
 * cheap test before the word match of rankTextHits, as the SQL's substring filter), at most `max`.
 */
export function transcriptCandidates(
  transcripts: readonly KeptTranscript[],
  parsed: ParsedSearchQuery,
  max = Number.POSITIVE_INFINITY,
): { candidates: TextCandidate<Omit<TranscriptHit, "snippet">>[]; more: boolean } {
  const alternatives = asciiAlternatives(parsed);
  const mayMatch = (text: string) => {
    const lower = text.toLowerCase();
    return alternatives.some((words) => words.every((w) => lower.includes(w)));
  };
  const candidates: TextCandidate<Omit<TranscriptHit, "snippet">>[] = [];
  for (const t of transcripts)
    for (const [i, m] of t.messages.entries()) {
      if (!mayMatch(m.text)) continue;
      if (candidates.length === max) return { candidates, more: true };
      candidates.push({
        text: m.text,
        created_at: t.created_at,
        evaluation_id: t.evaluation_id,
        order: [i],
        hit: {
          evaluation_id: t.evaluation_id,
          ...runOfMessage(t.runs, m.sender),
          ...m,
          created_at: t.created_at,
        },
      });
    }
  return { candidates, more: false };
}

/**
 * The newest persona evaluations' kept transcripts (TRANSCRIPT_SCAN of them). An input is JSON text, gzip-compressed
 * above 64 KB (stored-document.ts), which SQL cannot read: each is read, unpacked and parsed here once, and kept by
 * evaluation id (an evaluation's input never changes once written) while it stays among the newest.
 */
function keptTranscripts(db: Queryable) {
  const kept = new Map<string, KeptMessage[]>();
  return async (): Promise<KeptTranscript[]> => {
    const listed = (
      await db.query<{ id: string; created_at: Date | string }>(
        `SELECT id, created_at FROM evaluations WHERE kind = 'persona' AND input IS NOT NULL
          ORDER BY created_at DESC, id DESC LIMIT $1`,
        [TRANSCRIPT_SCAN],
      )
    ).rows;
    const ids = listed.map((r) => r.id);
    for (const id of kept.keys()) if (!ids.includes(id)) kept.delete(id);
    const missing = ids.filter((id) => !kept.has(id));
    if (missing.length > 0) {
      const docs = await db.query<{ id: string; input: string }>(
        "SELECT id, input FROM evaluations WHERE id = ANY($1::uuid[])",
        [missing],
      );
      for (const d of docs.rows) {
        let messages: KeptMessage[] = [];
        try {
          messages = keptMessages(documentOf(d.input));
        } catch {
          // An input this version cannot read: no message of it is searched.
        }
        kept.set(d.id, messages);
      }
    }
    const holding = listed.filter((r) => (kept.get(r.id)?.length ?? 0) > 0);
    const runs =
      holding.length === 0
        ? []
        : (
            await db.query<{ id: string; evaluation_id: string; agent_id: string; trial: number }>(
              "SELECT id, evaluation_id, agent_id, trial FROM evaluation_runs WHERE evaluation_id = ANY($1::uuid[])",
              [holding.map((r) => r.id)],
            )
          ).rows;
    return holding.map((r) => ({
      evaluation_id: r.id,
      created_at: iso(r.created_at),
      messages: kept.get(r.id)!,
      runs: runs.filter((run) => run.evaluation_id === r.id),
    }));
  };
}

interface RawReasoning {
  id: string;
  evaluation_id: string;
  run_id: string;
  agent_id: string | null;
  dimension: string;
  proposition_id: string;
  message_id: string | null;
  channel: string | null;
  trial: number;
  status: "ok" | "trivial";
  score: number | null;
  count: number | null;
  reasoning: string;
  created_at: Date | string;
}

/**
 * The verdicts of the newest evaluations ($1 of them, through each evaluation's key) whose reasoning may match;
 * at most $2. No index: one on the reasoning cost every verdict write more than this scan costs a search.
 */
function reasoningSearch(filter: string) {
  // The persona evaluations (only they have runs) newest first, through their (kind, created_at) index, each one's
  // verdicts through the primary key (evaluation_id, verdict_key), in a
  // nested loop that stops at $1 rows (OFFSET 0 keeps the planner from making it a join of every verdict, which read
  // and sorted 200,000 of them in 1.3 s where the loop reads 10,000).
  return `WITH recent AS (
       SELECT s.*, e.created_at
         FROM (SELECT id, created_at FROM evaluations WHERE kind = 'persona' ORDER BY created_at DESC, id DESC) e
              CROSS JOIN LATERAL (
                SELECT id, evaluation_id, evaluation_run_id AS run_id, agent_id, dimension, proposition_id,
                       message_id, channel, trial, status, score, count, reasoning
                  FROM evaluation_scores
                 WHERE evaluation_id = e.id AND evaluation_run_id IS NOT NULL AND status <> 'errored'
                OFFSET 0) s
        LIMIT $1)
     SELECT * FROM recent WHERE ${filter} LIMIT $2`;
}

async function searchReasonings(db: Queryable, parsed: ParsedSearchQuery, limit: number) {
  const filter = substringFilter("reasoning", parsed, 3);
  const found = await db.query<RawReasoning>(reasoningSearch(filter.sql), [
    REASONING_SCAN,
    TEXT_CANDIDATES + 1,
    ...filter.params,
  ]);
  return rankTextHits(
    found.rows.slice(0, TEXT_CANDIDATES).map((r) => reasoningCandidate(r, iso(r.created_at))),
    parsed,
    limit,
    found.rows.length > TEXT_CANDIDATES,
  );
}

/** A verdict as a candidate of the reasoning search (both backends). */
export function reasoningCandidate(
  r: Omit<RawReasoning, "created_at">,
  created_at: string,
): TextCandidate<Omit<ReasoningHit, "snippet">> {
  return {
    text: r.reasoning,
    created_at,
    evaluation_id: r.evaluation_id,
    order: [r.agent_id ?? "", r.trial, r.dimension, r.proposition_id, r.message_id ?? r.channel ?? "", r.id],
    hit: {
      id: r.id,
      evaluation_id: r.evaluation_id,
      run_id: r.run_id,
      agent_id: r.agent_id,
      dimension: r.dimension,
      proposition_id: r.proposition_id,
      message_id: r.message_id,
      trial: r.trial,
      status: r.status,
      score: r.count ?? (r.score === null ? null : Number(r.score)),
      reasoning: r.reasoning,
      created_at,
    },
  };
}
