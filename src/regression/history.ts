// An agent's scores over its stored runs: a sparkline, and a mark wherever the judge, propositions or
// persona changed from the point before, because scores across such a change are not comparable.
import { MAX_SCORE, round } from "../core/index.ts";
import type { HistoryPoint, RunJudge } from "../store/index.ts";

const BARS = "▁▂▃▄▅▆▇█";

/**
 * One bar per value on a fixed scale (0–9 for scores), so a flat line means the same score, not the
 * same relative position; a missing value is a space.
 */
export function sparkline(values: readonly (number | null)[], { min = 0, max = MAX_SCORE } = {}): string {
  const span = max - min || 1;
  return values
    .map((v) => {
      if (v === null) return " ";
      const level = Math.round(((Math.min(max, Math.max(min, v)) - min) / span) * (BARS.length - 1));
      return BARS[level]!;
    })
    .join("");
}

export interface HistoryEntry {
  run_id: string;
  evaluation_id: string | null;
  at: string;
  score: number | null;
  count: number | null;
  judge: string | null;
  is_baseline: boolean;
  /** What changed since the previous point (judge, propositions, persona); empty when comparable. */
  changed: string[];
}

export interface AgentHistory {
  agent: string;
  dimension: string;
  points: HistoryEntry[];
}

export function judgeLabel(judge: RunJudge | null): string | null {
  return judge ? `${judge.provider}:${judge.model}` : null;
}

function sameJudge(a: RunJudge | null, b: RunJudge | null): boolean {
  if (!a || !b) return a === b;
  return (
    a.provider === b.provider &&
    a.model === b.model &&
    a.mode === b.mode &&
    a.prompt_version === b.prompt_version &&
    (a.temperature ?? null) === (b.temperature ?? null) &&
    a.double_check === b.double_check
  );
}

export function agentHistory(
  agent: string,
  dimension: string,
  points: readonly HistoryPoint[],
): AgentHistory {
  return {
    agent,
    dimension,
    points: points.map((p, i) => {
      const prev = points[i - 1];
      const changed: string[] = [];
      if (prev) {
        if (!sameJudge(prev.judge, p.judge)) changed.push("judge");
        if (prev.propositions_hash !== p.propositions_hash) changed.push("propositions");
        if (prev.persona_hash !== p.persona_hash) changed.push("persona");
      }
      return {
        run_id: p.run_id,
        evaluation_id: p.evaluation_id,
        at: p.completed_at ?? p.created_at,
        score: p.score === null ? null : round(p.score),
        count: p.count,
        judge: judgeLabel(p.judge),
        is_baseline: p.is_baseline,
        changed,
      };
    }),
  };
}
