// The schema, as an ordered list of migrations. Append only: never edit a released migration
// (its checksum is recorded); add the next version instead.

export interface Migration {
  /** 1, 2, 3…: applied in this order, each once. */
  version: number;
  name: string;
  /** A script of statements; it runs inside the migration transaction. */
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial_schema",
    sql: /* sql */ `
-- Agents as last imported or evaluated. persona_hash says when a persona changed between runs.
CREATE TABLE agents (
  id            text PRIMARY KEY,
  name          text NOT NULL,
  persona       jsonb NOT NULL,
  persona_hash  text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- One invocation of an evaluation (persona now; session and conversation later): how it was
-- configured, how it went. Runs and scores hang off it; a resume continues it.
CREATE TABLE evaluations (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  kind               text NOT NULL DEFAULT 'persona',
  status             text NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'running', 'completed', 'failed')),
  source             text NOT NULL,
  config             jsonb NOT NULL DEFAULT '{}'::jsonb,
  propositions_hash  text,
  errored            integer NOT NULL DEFAULT 0,
  token_usage        jsonb,
  cache              jsonb,
  error              text,
  created_at         timestamptz NOT NULL DEFAULT now(),
  started_at         timestamptz,
  completed_at       timestamptz
);
CREATE INDEX evaluations_kind_created_at ON evaluations (kind, created_at);

-- The seed's evaluation_runs (one agent, one trial), plus what makes a run reproducible from its
-- record: judge, hashes, trial, errored count, and per-dimension results for cheap history.
CREATE TABLE evaluation_runs (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  agent_id           text NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  status             text NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'running', 'completed', 'failed')),
  dimensions         text[] NOT NULL,
  window_start       timestamptz,
  window_end         timestamptz,
  sample_size        integer NOT NULL,
  overall_score      real,
  is_baseline        boolean NOT NULL DEFAULT false,
  token_usage        jsonb,
  created_at         timestamptz NOT NULL DEFAULT now(),
  completed_at       timestamptz,
  evaluation_id      uuid REFERENCES evaluations (id) ON DELETE CASCADE,
  trial              integer NOT NULL DEFAULT 1,
  errored            integer NOT NULL DEFAULT 0,
  judge              jsonb,
  propositions_hash  text,
  persona_hash       text,
  started_at         timestamptz,
  error              text,
  cache              jsonb,
  dimension_scores   jsonb
);
CREATE INDEX evaluation_runs_agent_id_created_at ON evaluation_runs (agent_id, created_at);
CREATE INDEX evaluation_runs_evaluation_id ON evaluation_runs (evaluation_id);

-- One row per verdict, keyed by (evaluation, verdict key) so a resume or a re-write never
-- duplicates one. Unlike the seed, score is nullable: an errored verdict has no score, ever.
-- Environment (per-channel) verdicts have no run (evaluation_run_id NULL) and a channel.
CREATE TABLE evaluation_scores (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  evaluation_run_id  uuid REFERENCES evaluation_runs (id) ON DELETE CASCADE,
  dimension          text NOT NULL,
  proposition_id     text NOT NULL,
  score              real,
  reasoning          text NOT NULL,
  context_snippet    text,
  created_at         timestamptz NOT NULL DEFAULT now(),
  evaluation_id      uuid NOT NULL REFERENCES evaluations (id) ON DELETE CASCADE,
  agent_id           text,
  message_id         text,
  channel            text,
  trial              integer NOT NULL DEFAULT 1,
  status             text NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'errored', 'trivial')),
  raw_score          real,
  count              integer,
  ideas              jsonb,
  weight             real,
  inverted           boolean,
  hard               boolean,
  error              text,
  verdict_key        text NOT NULL,
  CONSTRAINT evaluation_scores_verdict UNIQUE (evaluation_id, verdict_key),
  CONSTRAINT evaluation_scores_errored_has_no_score
    CHECK (status <> 'errored' OR (score IS NULL AND raw_score IS NULL AND count IS NULL))
);
CREATE INDEX evaluation_scores_run_dimension ON evaluation_scores (evaluation_run_id, dimension);

-- The seed's action-gate log, unchanged (run_id points at evaluation_runs).
CREATE TABLE correction_logs (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  agent_id          text NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  run_id            uuid REFERENCES evaluation_runs (id) ON DELETE SET NULL,
  original_text     text NOT NULL,
  corrected_text    text,
  dimension_scores  jsonb,
  similarity_score  real,
  total_score       real,
  attempt_number    integer NOT NULL,
  outcome           text NOT NULL,
  token_usage       jsonb,
  created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX correction_logs_agent_id_created_at ON correction_logs (agent_id, created_at);

-- The seed's per-agent correction settings, unchanged (thresholds default to TinyTroupe's 7).
CREATE TABLE agent_evaluation_config (
  id                               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  agent_id                         text NOT NULL UNIQUE REFERENCES agents (id) ON DELETE CASCADE,
  gate_adherence_enabled           boolean NOT NULL DEFAULT false,
  gate_consistency_enabled         boolean NOT NULL DEFAULT false,
  gate_fluency_enabled             boolean NOT NULL DEFAULT false,
  gate_suitability_enabled         boolean NOT NULL DEFAULT false,
  gate_adherence_threshold         real NOT NULL DEFAULT 7.0,
  gate_consistency_threshold       real NOT NULL DEFAULT 7.0,
  gate_fluency_threshold           real NOT NULL DEFAULT 7.0,
  gate_suitability_threshold       real NOT NULL DEFAULT 7.0,
  gate_similarity_enabled          boolean NOT NULL DEFAULT false,
  max_action_similarity            real NOT NULL DEFAULT 0.6,
  max_correction_attempts          integer NOT NULL DEFAULT 2,
  continue_on_failure              boolean NOT NULL DEFAULT true,
  minimum_required_qty_of_actions  integer NOT NULL DEFAULT 0,
  anti_convergence_enabled         boolean NOT NULL DEFAULT false,
  convergence_threshold            real NOT NULL DEFAULT 0.6,
  variety_intervention_enabled     boolean NOT NULL DEFAULT false,
  variety_message_threshold        integer NOT NULL DEFAULT 7,
  repetition_suppression_enabled   boolean NOT NULL DEFAULT false,
  repetition_threshold             real NOT NULL DEFAULT 0.3,
  updated_at                       timestamptz NOT NULL DEFAULT now()
);

-- Transcript messages stored by \`dramaturg import\`, keyed by import batch (source) and message id.
-- sender is an agent id or any other name (a user), so it carries no foreign key.
CREATE TABLE run_messages (
  source       text NOT NULL,
  id           text NOT NULL,
  sender       text NOT NULL,
  channel      text NOT NULL,
  recipient    text,
  text         text NOT NULL,
  at           timestamptz NOT NULL,
  imported_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source, id)
);
CREATE INDEX run_messages_sender_at ON run_messages (sender, at);
CREATE INDEX run_messages_channel_at ON run_messages (channel, at);

-- Judge answers by a hash of everything that determines them (trial included), so a re-run
-- with the same judge and inputs costs nothing; usage is what the original call cost.
CREATE TABLE verdict_cache (
  key          text PRIMARY KEY,
  provider     text NOT NULL,
  model        text NOT NULL,
  value        jsonb NOT NULL,
  usage        jsonb,
  created_at   timestamptz NOT NULL DEFAULT now(),
  hits         integer NOT NULL DEFAULT 0,
  last_hit_at  timestamptz
);
CREATE INDEX verdict_cache_provider_model ON verdict_cache (provider, model);
`,
  },
  {
    version: 2,
    name: "set_based_score_checks_and_cache_hit_tally",
    sql: /* sql */ `
-- Scores are written thousands at a time. Their parents were checked by two foreign keys, that is by
-- two lookups per row; they are now checked once per statement, over all its rows at once, with the
-- same guarantees: the parents must exist (and a run must belong to the score's evaluation), they are
-- locked as a foreign key locks them, and deleting an evaluation or a run deletes its scores.
-- The natural key (evaluation, verdict key) becomes the primary key: one index fewer per row; id stays.
ALTER TABLE evaluation_scores
  DROP CONSTRAINT evaluation_scores_evaluation_id_fkey,
  DROP CONSTRAINT evaluation_scores_evaluation_run_id_fkey,
  DROP CONSTRAINT evaluation_scores_pkey,
  DROP CONSTRAINT evaluation_scores_verdict,
  ADD CONSTRAINT evaluation_scores_pkey PRIMARY KEY (evaluation_id, verdict_key);
ALTER TABLE evaluation_scores ALTER COLUMN id SET NOT NULL;

CREATE FUNCTION evaluation_scores_check_parents() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  orphan record;
BEGIN
  PERFORM 1 FROM evaluations WHERE id IN (SELECT evaluation_id FROM written_scores) FOR KEY SHARE;
  PERFORM 1 FROM evaluation_runs WHERE id IN (SELECT evaluation_run_id FROM written_scores) FOR KEY SHARE;
  SELECT s.evaluation_id, s.evaluation_run_id, s.verdict_key INTO orphan
    FROM written_scores s
   WHERE NOT EXISTS (SELECT 1 FROM evaluations e WHERE e.id = s.evaluation_id)
      OR (s.evaluation_run_id IS NOT NULL AND NOT EXISTS (
            SELECT 1 FROM evaluation_runs r WHERE r.id = s.evaluation_run_id AND r.evaluation_id = s.evaluation_id))
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'score "%" names evaluation % and run %, which do not exist together',
      orphan.verdict_key, orphan.evaluation_id, coalesce(orphan.evaluation_run_id::text, 'none')
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER evaluation_scores_parents_on_insert AFTER INSERT ON evaluation_scores
  REFERENCING NEW TABLE AS written_scores FOR EACH STATEMENT EXECUTE FUNCTION evaluation_scores_check_parents();
CREATE TRIGGER evaluation_scores_parents_on_update AFTER UPDATE ON evaluation_scores
  REFERENCING NEW TABLE AS written_scores FOR EACH STATEMENT EXECUTE FUNCTION evaluation_scores_check_parents();

-- The cascade: the trigger's argument names the column that points at the deleted parents.
CREATE FUNCTION evaluation_scores_delete_with_parents() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('DELETE FROM evaluation_scores WHERE %I IN (SELECT id FROM deleted_parents)', TG_ARGV[0]);
  RETURN NULL;
END $$;
CREATE TRIGGER evaluations_delete_scores AFTER DELETE ON evaluations
  REFERENCING OLD TABLE AS deleted_parents FOR EACH STATEMENT
  EXECUTE FUNCTION evaluation_scores_delete_with_parents('evaluation_id');
CREATE TRIGGER evaluation_runs_delete_scores AFTER DELETE ON evaluation_runs
  REFERENCING OLD TABLE AS deleted_parents FOR EACH STATEMENT
  EXECUTE FUNCTION evaluation_scores_delete_with_parents('evaluation_run_id');

-- Cache hits were counted by updating every entry served, which cost more than the lookup itself.
-- They are now tallied: one row per model and lookup, with the tokens the served entries first cost.
CREATE TABLE verdict_cache_hits (
  provider       text NOT NULL,
  model          text NOT NULL,
  hits           integer NOT NULL CHECK (hits > 0),
  input_tokens   bigint NOT NULL DEFAULT 0,
  output_tokens  bigint NOT NULL DEFAULT 0,
  at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX verdict_cache_hits_provider_model ON verdict_cache_hits (provider, model);
INSERT INTO verdict_cache_hits (provider, model, hits, input_tokens, output_tokens, at)
SELECT provider, model, sum(hits),
       sum(hits * COALESCE((usage ->> 'input_tokens')::bigint, 0)),
       sum(hits * COALESCE((usage ->> 'output_tokens')::bigint, 0)),
       COALESCE(max(last_hit_at), now())
  FROM verdict_cache WHERE hits > 0 GROUP BY provider, model;
ALTER TABLE verdict_cache DROP COLUMN hits, DROP COLUMN last_hit_at;
`,
  },
  {
    version: 3,
    name: "evaluation_input_result_and_interrupted",
    sql: /* sql */ `
-- An evaluation keeps what it evaluated (the transcript and the resolved propositions) and, once
-- completed, its result document: a resume and \`dramaturg show\` then need none of the original files.
-- JSON text, not jsonb: jsonb reorders object keys, and key order reaches the judge's prompts (a
-- persona's fields) and the printed result.
ALTER TABLE evaluations ADD COLUMN input text, ADD COLUMN result text;

-- Interrupted (Ctrl-C, SIGTERM): what was judged is committed and the rest can be resumed; unlike
-- failed, nothing went wrong.
ALTER TABLE evaluations DROP CONSTRAINT evaluations_status_check,
  ADD CONSTRAINT evaluations_status_check
  CHECK (status IN ('pending', 'running', 'completed', 'failed', 'interrupted'));
ALTER TABLE evaluation_runs DROP CONSTRAINT evaluation_runs_status_check,
  ADD CONSTRAINT evaluation_runs_status_check
  CHECK (status IN ('pending', 'running', 'completed', 'failed', 'interrupted'));
`,
  },
  {
    version: 4,
    name: "evaluation_input_and_result_uncompressed",
    sql: /* sql */ `
-- An evaluation's input and result (hundreds of KB for a long transcript) are stored out of line but not
-- compressed: PGlite's pglz compression of a 250 KB input took 70 ms of a run's start, stored as is 9 ms.
-- They are written once per evaluation and read only by a resume and \`dramaturg show\`.
ALTER TABLE evaluations ALTER COLUMN input SET STORAGE EXTERNAL, ALTER COLUMN result SET STORAGE EXTERNAL;
`,
  },
  {
    version: 5,
    name: "correction_logs_and_agent_settings_without_foreign_keys",
    sql: /* sql */ `
-- The action gate also runs inside an AI SDK app, for agents that were never imported, and in world
-- simulations, which are no evaluation run: a correction log and an agent's correction settings name the
-- agent (and a log its run) by id alone, with no foreign key that would refuse such a check or setting.
-- run_id is text for the same reason: a simulation's run is named by its caller, not a uuid of ours.
ALTER TABLE correction_logs
  DROP CONSTRAINT correction_logs_agent_id_fkey,
  DROP CONSTRAINT correction_logs_run_id_fkey,
  ALTER COLUMN run_id TYPE text USING run_id::text,
  ADD CONSTRAINT correction_logs_outcome_check
    CHECK (outcome IN ('passed', 'corrected', 'passed_after_retry', 'forced_through', 'timeout_pass_through')),
  ADD CONSTRAINT correction_logs_attempt_number_check CHECK (attempt_number >= 1),
  -- The gate logs in batches, whose rows share one now(): this keeps their order for "newest first".
  ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
ALTER TABLE agent_evaluation_config DROP CONSTRAINT agent_evaluation_config_agent_id_fkey;
`,
  },
  {
    version: 6,
    name: "correction_logs_rejected_outcome",
    sql: /* sql */ `
-- A message that fails every attempt while its agent's continue_on_failure is off is not sent. Its check is
-- still a check (its first attempt failed, its scores are real), so it is logged, as \`rejected\`: counting it
-- as forced_through would say a failing message was committed, and leaving it out would raise the success rates.
ALTER TABLE correction_logs
  DROP CONSTRAINT correction_logs_outcome_check,
  ADD CONSTRAINT correction_logs_outcome_check CHECK (outcome IN
    ('passed', 'corrected', 'passed_after_retry', 'forced_through', 'timeout_pass_through', 'rejected'));
`,
  },
  {
    version: 7,
    name: "evaluation_agents",
    sql: /* sql */ `
-- The agents an evaluation evaluated (a session's agents, a conversation's target), so the lists of session
-- analyses and conversations filter by agent in SQL, through a GIN index, without reading their documents.
ALTER TABLE evaluations ADD COLUMN agents text[] NOT NULL DEFAULT '{}';
UPDATE evaluations e
   SET agents = ARRAY(SELECT DISTINCT a ->> 'id'
                        FROM jsonb_array_elements(e.input::jsonb -> 'sessions') s,
                             jsonb_array_elements(s -> 'agents') a
                       WHERE a ->> 'id' IS NOT NULL)
 WHERE kind = 'session' AND jsonb_typeof(e.input::jsonb -> 'sessions') = 'array';
UPDATE evaluations
   SET agents = ARRAY[input::jsonb -> 'job' -> 'target' ->> 'chatbot']
 WHERE kind = 'conversation' AND jsonb_typeof(input::jsonb -> 'job' -> 'target' -> 'chatbot') = 'string';
CREATE INDEX evaluations_agents_idx ON evaluations USING gin (agents);
`,
  },
  {
    version: 8,
    name: "evaluation_fingerprint_and_cache_generation",
    sql: /* sql */ `
-- A rerun of an unchanged evaluation whose every verdict the cache holds reuses a stored one as a whole
-- (its score rows copied in one statement) instead of looking thousands of verdicts up one by one. An
-- evaluation keeps a digest of everything that determines its verdicts, and the verdict cache's generation
-- when it was created: the generation moves whenever an entry is deleted or replaced, and an evaluation is
-- reused only while it has not moved, so a reuse never copies a verdict the cache no longer holds.
ALTER TABLE evaluations ADD COLUMN fingerprint text, ADD COLUMN cache_generation bigint;
CREATE INDEX evaluations_fingerprint ON evaluations (fingerprint, created_at) WHERE fingerprint IS NOT NULL;
CREATE SEQUENCE verdict_cache_generation;
`,
  },
  {
    version: 9,
    name: "evaluation_rerun_cache",
    sql: /* sql */ `
-- An evaluation that judged, and stored every verdict it judged in the verdict cache, keeps the cache
-- figures a rerun of it would report: its first rerun then reuses it whole, as a warm rerun's would be.
ALTER TABLE evaluations ADD COLUMN rerun_cache jsonb;
`,
  },
  {
    version: 10,
    name: "queue_rate_limits_job_totals_and_online_rules",
    sql: /* sql */ `
-- The queue's tables (issue 37); only PostgreSQL servers queue work, but every store has the same schema.
--
-- A judge's rate limit shared by every worker that uses its key: one row per limit key (provider, model and a
-- digest of the API key, never the key itself), the theoretical arrival times of the next request and of the
-- next token budget (GCRA), and a pause that every worker honours after a provider answered 429 Retry-After.
CREATE TABLE judge_rate_limits (
  key           text PRIMARY KEY,
  requests_tat  timestamptz NOT NULL DEFAULT now(),
  tokens_tat    timestamptz NOT NULL DEFAULT now(),
  paused_until  timestamptz NOT NULL DEFAULT '-infinity',
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- What each queued job of an evaluation cost (requests, calls, tokens, cache figures), so that the worker
-- that completes it reports the sum of its jobs rather than its own resume. A job run again replaces its row.
CREATE TABLE queued_job_totals (
  evaluation_id uuid NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
  job           text NOT NULL,
  totals        jsonb NOT NULL,
  finished_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (evaluation_id, job)
);

-- Continuous evaluation: each run of an online rule (the window of imported messages it looked at, how many it
-- sampled, the evaluation it queued and how that compared with the agents' baselines; job_id is the pg-boss job
-- that made it, so that the job tried again continues it) ...
CREATE TABLE online_runs (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  rule          text NOT NULL,
  job_id        text UNIQUE,
  window_start  timestamptz NOT NULL,
  window_end    timestamptz NOT NULL,
  messages      integer NOT NULL,
  sampled       integer NOT NULL,
  evaluation_id uuid REFERENCES evaluations(id) ON DELETE SET NULL,
  status        text NOT NULL CHECK (status IN ('queued', 'completed', 'failed', 'empty')),
  outcome       jsonb,
  error         text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  finished_at   timestamptz,
  UNIQUE (rule, window_end)
);
CREATE INDEX online_runs_rule_created ON online_runs (rule, created_at DESC);

-- ... and the alerts it raised: one per regression of an agent's dimension below its baseline, open until a
-- later run of the rule finds it back (at most one open alert per rule, agent and dimension).
CREATE TABLE online_alerts (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  rule          text NOT NULL,
  agent_id      text NOT NULL,
  dimension     text NOT NULL,
  online_run_id uuid NOT NULL REFERENCES online_runs(id) ON DELETE CASCADE,
  baseline      double precision NOT NULL,
  score         double precision NOT NULL,
  opened_at     timestamptz NOT NULL DEFAULT now(),
  resolved_at   timestamptz,
  delivery      jsonb
);
CREATE UNIQUE INDEX online_alerts_open ON online_alerts (rule, agent_id, dimension) WHERE resolved_at IS NULL;
CREATE INDEX online_alerts_agent ON online_alerts (agent_id, opened_at DESC);
`,
  },
  {
    version: 11,
    name: "message_full_text_search",
    sql: /* sql */ `
-- The dashboard's search finds imported messages by their words (issue 38): PostgreSQL's own full-text search
-- with the 'simple' configuration (no stemming and no stop words, so that it serves every language alike), a
-- GIN index over each message's words. The words are a stored column rather than an index expression: ranking
-- the candidates and checking a phrase's word positions read them for every candidate row, and parsing the
-- text again there cost 2.5-7 times as much (100,000 messages on PGlite: a two-word phrase over 1,000
-- candidates 146 ms, stored 25 ms). About 45% more bytes per message row.
ALTER TABLE run_messages
  ADD COLUMN text_words tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED;
CREATE INDEX run_messages_text_words ON run_messages USING gin (text_words);
`,
  },
  {
    version: 12,
    name: "labels",
    sql: /* sql */ `
-- People's labels of a persona evaluation's judged items, entered on the dashboard's labelling page (issue 39)
-- and exported as dramaturg.labels/v1 for \`dramaturg calibrate\`: the raw claim score 0-9 a rater gives one
-- target (a message, an agent as a whole, or a channel) on one proposition. One label per target and rater:
-- saving again replaces it (NULLS NOT DISTINCT, PostgreSQL 15+, since a target leaves the columns it does
-- not use NULL). A plain foreign key, unlike the scores' set-based check: labels are written one at a time,
-- by a person.
CREATE TABLE labels (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  evaluation_id   uuid NOT NULL REFERENCES evaluations (id) ON DELETE CASCADE,
  dimension       text NOT NULL CHECK (dimension <> ''),
  proposition_id  text NOT NULL CHECK (proposition_id <> ''),
  agent_id        text,
  message_id      text,
  channel         text,
  rater           text NOT NULL CHECK (char_length(rater) BETWEEN 1 AND 64),
  score           integer NOT NULL CHECK (score BETWEEN 0 AND 9),
  note            text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  -- A channel alone, or an agent (with or without one of its messages).
  CONSTRAINT labels_one_target
    CHECK ((channel IS NULL) = (agent_id IS NOT NULL) AND (message_id IS NULL OR agent_id IS NOT NULL)),
  CONSTRAINT labels_one_per_rater UNIQUE NULLS NOT DISTINCT
    (evaluation_id, dimension, proposition_id, agent_id, message_id, channel, rater)
);
`,
  },
  {
    version: 13,
    name: "signed_out_sessions",
    sql: /* sql */ `
-- Dashboard sessions signed out before they expired (issue 46), so that a copy of a signed-out cookie stays
-- refused after a restart and by every server process on the store. A session id is the cookie's random
-- nonce: no secret, since a cookie is only good with the HMAC that the server's token makes. A row is kept
-- until the session would have expired anyway (the server forgets older ones as it signs new ones out).
CREATE TABLE signed_out_sessions (
  session_id  text PRIMARY KEY CHECK (session_id <> ''),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX signed_out_sessions_expiry ON signed_out_sessions (expires_at);
`,
  },
  {
    version: 14,
    name: "message_source_ids",
    sql: /* sql */ `
-- An imported message's ids in the tracing tool it came from (Langfuse's trace and observation, an OTLP span…),
-- kept by \`dramaturg import\` of a trace (issue 51) so that \`eval --from-store\` can send its scores back there.
-- NULL for a message that came with none: every message imported before this version, and any plain transcript.
ALTER TABLE run_messages ADD COLUMN source_ids jsonb;
`,
  },
];
