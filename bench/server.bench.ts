// The JSON API over a large store (issue 22): a PGlite folder, or a database of its own on a PostgreSQL
// server (`--db postgres://…` or DRAMATURG_BENCH_DB), with 10,000 completed runs of 20 agents and
// 1,000,000 verdict rows, seeded in SQL with generate_series; then the p95 of `GET /api/runs` (first page,
// one agent's, a page deep behind a cursor) and of an agent's history, and the dashboard's pages (`/agents`,
// an agent's drift page, `/runs`), through `app.request()` (no socket): server time. Also 100,000 imported
// messages, and the p95 of the search (issue 38) over them and the runs, agents and sessions.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createServerApp } from "../src/server/index.ts";
import { openStore, type Store } from "../src/store/index.ts";
import { handMadeCalibration, storeCalibration } from "../test/web/calibration-store.ts";

/** The environment variable naming a PostgreSQL server to bench on (`npm run bench` passes no options). */
export const BENCH_DB_ENV = "DRAMATURG_BENCH_DB";

/** The database created on that server for one run, and dropped after it. */
const BENCH_DATABASE = "dramaturg_bench";

export interface ServerFigures {
  /** Where the store was: `pglite` (a temp folder) or `postgres` (a database of its own). */
  backend: "pglite" | "postgres";
  runs: number;
  scores: number;
  /** Imported messages, what the search's full text covers. */
  messages: number;
  agents: number;
  seed_s: number;
  /** p50 / p95 / max in ms per request kind, over `requests` requests each. */
  latency: Record<string, { p50_ms: number; p95_ms: number; max_ms: number }>;
  requests: number;
}

const AGENTS = 20;
/** Stored calibrations (hand-made documents of five propositions), for the calibration pages. */
const CALIBRATIONS = 200;
const SCORES_PER_RUN = 100;
/** Stored session analyses (no result documents: the list's filter is what is measured), 3 agents each. */
const SESSIONS = 2_000;
/**
 * Imported messages for the search (issue 38): the scores hold no text to search. 8–30 words each, drawn from
 * SEARCH_WORDS with a skew (the first words in most messages, the last in a few), from the agents and users.
 */
const MESSAGES = 100_000;
/** The messages' vocabulary, most frequent first. */
const SEARCH_WORDS = `the and to of a in is it you that we for on this with be are not have at but so
  what can about just they all do if was one will like out up there get more when now how time think know
  good make see our us me right well yes no here over could then some back would your want need go really
  only into because also after first way new day two kitchen garlic menu service table order guest chef
  sauce plate dinner lunch tonight station radio music news schedule listener studio signal weather morning
  evening market price budget report meeting plan team project deadline review draft change issue ticket
  refund invoice customer account password login server deploy release branch test build error warning
  latency cache queue worker database index query search result answer question reason evidence claim
  persona voice style tone character story scene dialogue rehearsal director actor script stage curtain
  lighting costume audience applause premiere critic saffron basil paprika oregano thyme rosemary fennel
  cardamom turmeric sumac zaatar harissa miso yuzu kombu bonito shiso tamarind galangal lemongrass
  sorrel lovage chervil borage nasturtium quince medlar loquat persimmon kumquat rambutan durian
  mangosteen salsify celeriac kohlrabi romanesco samphire purslane amaranth teff fonio freekeh
  zeppelin`.split(/\s+/);

/**
 * A fresh store for one run: a PGlite folder in TMPDIR, or the `dramaturg_bench` database created on the
 * given server (dropped first if a crashed run left it). `drop` removes it.
 */
async function benchStore(db: string | undefined): Promise<{ store: Store; drop(): Promise<void> }> {
  if (db === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "dramaturg-server-bench-"));
    const store = await openStore(join(dir, "store"));
    return {
      store,
      async drop() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (!/^postgres(ql)?:\/\//.test(db)) throw new Error(`--db: expected a postgres:// URL, got ${db}`);
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: db });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`DROP DATABASE IF EXISTS ${BENCH_DATABASE} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${BENCH_DATABASE}`);
  const url = new URL(db);
  url.pathname = `/${BENCH_DATABASE}`;
  const store = await openStore(url.toString());
  return {
    store,
    async drop() {
      await store.close();
      await admin(`DROP DATABASE IF EXISTS ${BENCH_DATABASE} WITH (FORCE)`);
    },
  };
}

/** Runs, their evaluations and scores, inserted by the database itself: seconds, not minutes. */
async function seed(store: Store, runs: number): Promise<void> {
  const db = store.db!;
  await db.query(
    `INSERT INTO agents (id, name, persona, persona_hash)
     SELECT 'agent-' || a, 'Agent ' || a, to_jsonb('A persona ' || a), md5(a::text) FROM generate_series(1, $1) a`,
    [AGENTS],
  );
  // One evaluation per 100 runs (as 100-agent runs would be), all completed.
  await db.query(
    `INSERT INTO evaluations (kind, status, source, created_at, started_at, completed_at)
     SELECT 'persona', 'completed', 'bench-' || e, now() - (e || ' hours')::interval,
            now() - (e || ' hours')::interval, now() - (e || ' hours')::interval
       FROM generate_series(1, $1) e`,
    [Math.ceil(runs / 100)],
  );
  await db.query(
    `WITH e AS (SELECT id, row_number() OVER (ORDER BY source) AS n FROM evaluations WHERE source LIKE 'bench-%')
     INSERT INTO evaluation_runs (agent_id, status, dimensions, sample_size, overall_score, created_at, started_at,
                                  completed_at, evaluation_id, judge, propositions_hash, persona_hash, dimension_scores)
     SELECT 'agent-' || (1 + r % $2), 'completed', ARRAY['adherence', 'consistency', 'fluency'], 50,
            (r % 90) / 10.0, t, t, t, e.id,
            '{"provider":"openai","model":"gpt-4o-mini","mode":"batch","double_check":false,"prompt_version":"p1"}'::jsonb,
            'props', md5((1 + r % $2)::text),
            jsonb_build_object('adherence', jsonb_build_object('score', (r % 90) / 10.0, 'judged', 40, 'errored', 0),
                               'consistency', jsonb_build_object('score', (r % 80) / 10.0, 'judged', 30, 'errored', 0),
                               'fluency', jsonb_build_object('score', (r % 70) / 10.0, 'judged', 30, 'errored', 0))
       FROM generate_series(0, $1 - 1) r
       CROSS JOIN LATERAL (SELECT now() - (r || ' minutes')::interval - (random() * interval '1 second') AS t) at
       JOIN e ON e.n = 1 + r / 100`,
    [runs, AGENTS],
  );
  // The verdicts, a run's worth per statement batch so no one statement holds a million rows in memory.
  const ids = (await db.query<{ id: string }>("SELECT id FROM evaluation_runs ORDER BY created_at")).rows;
  const batch = 500;
  for (let i = 0; i < ids.length; i += batch)
    await db.query(
      `INSERT INTO evaluation_scores (evaluation_run_id, evaluation_id, dimension, proposition_id, score, raw_score,
                                      reasoning, agent_id, message_id, trial, status, verdict_key)
       SELECT r.id, r.evaluation_id, (ARRAY['adherence', 'consistency', 'fluency'])[1 + k % 3], 'p' || (k % 10),
              k % 10, k % 10, 'The message keeps the persona''s voice and names the topic.', r.agent_id,
              'm' || k, 1, 'ok', r.id || ':' || k
         FROM evaluation_runs r CROSS JOIN generate_series(1, $2) k
        WHERE r.id = ANY($1::uuid[])`,
      [ids.slice(i, i + batch).map((r) => r.id), SCORES_PER_RUN],
    );
  // Session analyses, each of three of the agents, for the list's agent filter.
  await db.query(
    `INSERT INTO evaluations (kind, status, source, agents, created_at, started_at, completed_at)
     SELECT 'session', 'completed', 'session-' || s,
            ARRAY['agent-' || (1 + s % $2), 'agent-' || (1 + (s + 1) % $2), 'agent-' || (1 + (s + 7) % $2)],
            now() - (s || ' minutes')::interval, now() - (s || ' minutes')::interval, now() - (s || ' minutes')::interval
       FROM generate_series(1, $1) s`,
    [SESSIONS, AGENTS],
  );
  // Messages for the search, each word drawn from the vocabulary with a skew towards its first words.
  await db.query(
    `INSERT INTO run_messages (source, id, sender, channel, text, at)
     SELECT 'chat-' || (m / 1000), 'm' || m,
            CASE WHEN m % 5 = 0 THEN 'user-' || (m % 97) ELSE 'agent-' || (1 + m % $2) END, 'channel-' || (m % 50),
            (SELECT string_agg(($3::text[])[1 + floor(power(random(), 2.5) * cardinality($3::text[]))::int], ' ')
               FROM generate_series(1, 8 + m % 23)),
            now() - (m || ' seconds')::interval
       FROM generate_series(1, $1) m`,
    [MESSAGES, AGENTS, SEARCH_WORDS],
  );
  await db.query("ANALYZE");
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
const round = (n: number) => Math.round(n * 100) / 100;

export async function benchServer({
  runs = 10_000,
  requests = 200,
  db = process.env[BENCH_DB_ENV] || undefined,
}: {
  runs?: number;
  requests?: number;
  /** A PostgreSQL server URL; default a PGlite folder. */
  db?: string;
} = {}): Promise<ServerFigures> {
  const { store, drop } = await benchStore(db);
  try {
    const started = performance.now();
    await seed(store, runs);
    const seed_s = round((performance.now() - started) / 1000);
    const counted = await store.db!.query<{ runs: string; scores: string; messages: string }>(
      `SELECT (SELECT count(*) FROM evaluation_runs) AS runs, (SELECT count(*) FROM evaluation_scores) AS scores,
              (SELECT count(*) FROM run_messages) AS messages`,
    );
    const app = createServerApp({ store });
    const json = async (path: string) => {
      const response = await app.request(path);
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return response.json() as Promise<{ next_cursor?: string | null }>;
    };
    // A cursor 40 pages deep, to show a late page costs what the first does.
    let deep = "";
    for (let page = 0; page < 40; page++)
      deep = (await json(`/api/runs?limit=50${deep ? `&cursor=${deep}` : ""}`)).next_cursor ?? "";
    // An agent's history two pages back (of 200 runs each): its runs 400 before the newest.
    let older = "";
    for (let page = 0; page < 2; page++)
      older =
        (await json(`/api/agents/agent-1/history?limit=200${older ? `&cursor=${older}` : ""}`)).next_cursor ??
        "";
    const first = (await json("/api/runs?limit=1")) as unknown as {
      runs: { id: string; agent_id: string }[];
    };
    // The run before it of the same agent, for the comparison page.
    const [, before] = (
      (await json(`/api/runs?agent=${first.runs[0]!.agent_id}&limit=2`)) as unknown as {
        runs: { id: string }[];
      }
    ).runs;
    // Calibrations (issue 39), the newest of the first run's evaluation, so its page links to them.
    const firstRun = await store.runs.get(first.runs[0]!.id);
    const [unlinked, linked] = [
      handMadeCalibration(),
      handMadeCalibration({ calibrated: firstRun!.evaluation_id }),
    ];
    const calibrations: string[] = [];
    for (let i = 0; i < CALIBRATIONS; i++)
      calibrations.push(await storeCalibration(store, i >= CALIBRATIONS - 3 ? linked : unlinked));
    const kinds: Record<string, (i: number) => string> = {
      "GET /api/runs": () => "/api/runs",
      "GET /api/runs?agent=…": (i) => `/api/runs?agent=agent-${1 + (i % AGENTS)}`,
      "GET /api/runs?dimension=…&since=…": () =>
        `/api/runs?dimension=fluency&since=${new Date(Date.now() - 86_400_000).toISOString()}`,
      "GET /api/runs?cursor=(page 41)": () => `/api/runs?cursor=${deep}`,
      "GET /api/agents/:id/history": (i) => `/api/agents/agent-${1 + (i % AGENTS)}/history`,
      "GET /api/agents/:id/history?dimension=adherence": (i) =>
        `/api/agents/agent-${1 + (i % AGENTS)}/history?dimension=adherence`,
      "GET /api/agents/:id/history?cursor=(page 3)": () => `/api/agents/agent-1/history?cursor=${older}`,
      "GET /api/runs/:id (100 verdicts)": () => `/api/runs/${first.runs[0]!.id}`,
      "GET /api/agents": () => "/api/agents",
      "GET /api/sessions?agent=…": (i) => `/api/sessions?agent=agent-${1 + (i % AGENTS)}`,
    };
    // The dashboard's pages: HTML rendered from the same store calls (issue 22's < 200 ms target).
    const pages: Record<string, (i: number) => string> = {
      "page /agents": () => "/agents",
      "page /agents/:id (drift chart, fallen propositions)": (i) => `/agents/agent-${1 + (i % AGENTS)}`,
      "page /runs": () => "/runs",
      "page /runs?agent=…": (i) => `/runs?agent=agent-${1 + (i % AGENTS)}`,
      "page /runs/:id (100 verdicts)": () => `/runs/${first.runs[0]!.id}`,
      "page /runs/:id?failures=1": () => `/runs/${first.runs[0]!.id}?failures=1`,
      "page /runs?failures=1 (regressions against baselines)": () => "/runs?failures=1",
      "page /runs?sort=overall": () => "/runs?sort=overall&order=asc",
      "page /compare (two runs of 100 verdicts)": () => `/compare?a=${before!.id}&b=${first.runs[0]!.id}`,
      "page /sessions?agent=…": (i) => `/sessions?agent=agent-${1 + (i % AGENTS)}`,
      [`page /calibrations (${CALIBRATIONS} stored)`]: () => "/calibrations",
      "page /calibrations/:id": (i) => `/calibrations/${calibrations[i % CALIBRATIONS]}`,
    };
    // The search (issue 38) over the seeded messages, agents, runs and sessions: words of every frequency
    // (a common word matches most messages: only the first MESSAGE_CANDIDATES are ranked), a phrase, an
    // agent's id (its 500 runs and its sessions), a run's id prefix; the API and the page. Target < 100 ms.
    const pick = (words: readonly string[]) => (i: number) => encodeURIComponent(words[i % words.length]!);
    const common = pick(SEARCH_WORDS.slice(0, 10));
    const middle = pick(SEARCH_WORDS.slice(60, 120));
    const rare = pick(SEARCH_WORDS.slice(-20));
    const runPrefixes = (
      await store.db!.query<{ id: string }>("SELECT id FROM evaluation_runs ORDER BY random() LIMIT 50")
    ).rows.map((r) => r.id.slice(0, 8));
    const searches: Record<string, (i: number) => string> = {
      "search GET /api/search?q=(a word in most messages)": (i) => `/api/search?q=${common(i)}`,
      "search GET /api/search?q=(a word in some)": (i) => `/api/search?q=${middle(i)}`,
      "search GET /api/search?q=(a rare word)": (i) => `/api/search?q=${rare(i)}`,
      "search GET /api/search?q=(two words)": (i) => `/api/search?q=${middle(i)}+${middle(i + 7)}`,
      'search GET /api/search?q=("a phrase")': (i) => `/api/search?q=%22${common(i)}+${middle(i)}%22`,
      "search GET /api/search?q=(an agent's id)": (i) => `/api/search?q=agent-${1 + (i % AGENTS)}`,
      "search GET /api/search?q=(a run's id prefix)": (i) => `/api/search?q=${pick(runPrefixes)(i)}`,
      "search page /search?q=(a word in some)": (i) => `/search?q=${middle(i)}`,
    };
    const html = async (path: string) => {
      const response = await app.request(path);
      if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
      return response.text();
    };
    const latency: ServerFigures["latency"] = {};
    const requested = [
      ...Object.entries(kinds).map(([kind, path]) => [kind, path, json] as const),
      ...Object.entries(pages).map(([kind, path]) => [kind, path, html] as const),
      ...Object.entries(searches).map(
        ([kind, path]) => [kind, path, kind.includes(" page ") ? html : json] as const,
      ),
    ];
    for (const [kind, path, get] of requested) {
      for (let i = 0; i < 20; i++) await get(path(i)); // warm-up: plans cached, pages in memory
      const times: number[] = [];
      for (let i = 0; i < requests; i++) {
        const t = performance.now();
        await get(path(i));
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      latency[kind] = {
        p50_ms: round(percentile(times, 0.5)),
        p95_ms: round(percentile(times, 0.95)),
        max_ms: round(times.at(-1)!),
      };
    }
    return {
      backend: db === undefined ? "pglite" : "postgres",
      runs: Number(counted.rows[0]!.runs),
      scores: Number(counted.rows[0]!.scores),
      messages: Number(counted.rows[0]!.messages),
      agents: AGENTS,
      seed_s,
      latency,
      requests,
    };
  } finally {
    await drop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf("--db");
  const db = at === -1 ? undefined : process.argv[at + 1];
  console.log(JSON.stringify(await benchServer(db === undefined ? {} : { db }), null, 2));
}
