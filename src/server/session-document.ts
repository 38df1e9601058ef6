// The JSON document of a session analysis, shaped exactly as `dramaturg session analyze --format json`
// (and `dramaturg show ID --format json`) print it: one analysis alone with its sources, several whole.
// test/server/sessions.test.ts pins the two equal; change both together.
import type { SessionsAnalysis } from "../sessions/index.ts";

export function sessionsDocument(result: SessionsAnalysis): unknown {
  return result.analyses.length === 1 && !result.pass_k
    ? { ...result.analyses[0], sources: result.sources, ...(result.judge ? { judge_run: result.judge } : {}) }
    : result;
}
