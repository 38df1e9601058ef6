// The repositories over a SQL database (PGlite or PostgreSQL): the Store every SQL backend hands out.
import { agentConfigRepository } from "./agent-config.ts";
import { type AgentRepository, agentRepository } from "./agents.ts";
import { correctionLogRepository } from "./correction-logs.ts";
import type { Db } from "./db.ts";
import { evaluationRepository } from "./evaluations.ts";
import { labelRepository } from "./labels.ts";
import { messageRepository } from "./messages.ts";
import { migrationStatus } from "./migrator.ts";
import { onlineRepository } from "./online-runs.ts";
import { queuedJobTotalsRepository } from "./queued-job-totals.ts";
import { runRepository } from "./runs.ts";
import { createScoreWriter } from "./score-writer.ts";
import { scoreRepository, writeScoreBatch } from "./scores.ts";
import { searchRepository } from "./search.ts";
import { signedOutSessionRepository } from "./signed-out-sessions.ts";
import type { Store } from "./store.ts";
import { verdictCacheRepository } from "./verdict-cache.ts";

/** The repositories over an already open database (tests, and callers with their own Db). */
export function storeOver(db: Db, location: string): Store {
  let closed: Promise<void> | undefined;
  const agents: AgentRepository = agentRepository(db);
  return {
    location,
    dialect: db.dialect,
    db,
    agents,
    messages: messageRepository(db),
    evaluations: evaluationRepository(db),
    runs: runRepository(db),
    scores: {
      ...scoreRepository(db),
      writer: (options) => createScoreWriter((rows, o) => writeScoreBatch(db, rows, o), options),
    },
    verdictCache: verdictCacheRepository(db),
    corrections: correctionLogRepository(db),
    agentConfig: agentConfigRepository(db),
    search: searchRepository(db),
    labels: labelRepository(db),
    signedOutSessions: signedOutSessionRepository(db),
    queuedJobTotals: queuedJobTotalsRepository(db),
    online: onlineRepository(db),
    migrationStatus: () => migrationStatus(db),
    close: () => {
      closed ??= db.close();
      return closed;
    },
  };
}
