// The session kind read back: a stored analysis by id, the list of analyses, its reports, the API's schemas.
import { z } from "zod";
import { type StoredKind, storedListTable } from "../engine/index.ts";
import {
  listSessionAnalyses,
  loadSessionAnalysis,
  type SessionsAnalysis,
  type StoredSessionAnalysis,
  sessionsDocument,
} from "./analyze.ts";
import { SESSIONS_ANALYSIS_FORMAT } from "./judged.ts";
import { renderSessionMarkdown, renderSessionTable, score } from "./session-report.ts";

export const sessionKind: StoredKind<SessionsAnalysis, StoredSessionAnalysis> = {
  kind: "session",
  noun: "session analysis",
  section: "sessions",
  format: SESSIONS_ANALYSIS_FORMAT,
  load: (store, id) => loadSessionAnalysis({ store, id }),
  list: (store, query) => listSessionAnalyses({ store, ...query }),
  text: (analysis) => `${renderSessionTable(analysis)}\n`,
  markdown: (analysis) => `${renderSessionMarkdown(analysis)}\n`,
  json: sessionsDocument,
  listTable: (rows) =>
    storedListTable(rows, "sessions  overall  findings  bad turns  judge", (r) => {
      const overall = r.scores.map((x) => score(x.overall_score)).join(" ");
      const findings = r.scores.reduce((n, x) => n + x.findings, 0);
      const bad = r.scores.reduce((n, x) => n + x.bad_turns, 0);
      return `${String(r.sessions).padStart(8)}  ${overall.padStart(7)}  ${String(findings).padStart(8)}  ${String(bad).padStart(9)}  ${r.judge ?? "—"}`;
    }),
  readBack: "evaluation",
  htmlReport: true,
  api: {
    list: {
      summary: "stored session analyses, newest first",
      description:
        "a page of analyses: id, status, sessions, each session's overall score, findings, bad turns",
      // A session analysis has no dimension of the persona kind (its metrics are fixed and all of them are in
      // every analysis), so its list filters by agent and time only.
      agent: "only analyses of a session this agent took part in (its id)",
      row: z.looseObject({ id: z.string() }),
    },
    one: {
      summary: "one stored session analysis, as `dramaturg show ID --format json` prints it",
      description: "the analysis",
      conflict: "the analysis did not complete",
      document: z.looseObject({ format: z.string() }).meta({
        id: "SessionAnalysis",
        description:
          "dramaturg.session-analysis/v1 (one session: overall, coordination and intent-drift scores, per_agent_scores, turn_results, recommendations, tool_validation, latency, sources) or dramaturg.sessions-analysis/v1 (several)",
      }),
    },
  },
};
