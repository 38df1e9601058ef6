// Where a session's time and money went: per agent and per tool, counts and p50/p95/max latency, the
// slowest step named; the agents' cost apart from the judge's.
import { issuePath } from "../core/index.ts";
import type { Session } from "./session-format.ts";

/** Latency figures over the timed values (null when none was timed). */
export interface LatencyStats {
  timed: number;
  p50_ms: number | null;
  p95_ms: number | null;
  max_ms: number | null;
  total_ms: number;
}

export interface SlowestStep {
  turn_index: number;
  agent_id: string;
  /** The tool, when the slowest thing was a tool call. */
  tool_name?: string;
  latency_ms: number;
  path: string;
}

export interface SessionLatency {
  total_latency_ms: number | null;
  per_agent: Record<string, LatencyStats & { interactions: number; tool_calls: number }>;
  per_tool: Record<string, LatencyStats & { calls: number; errors: number }>;
  slowest_interaction: SlowestStep | null;
  slowest_tool_call: SlowestStep | null;
  /** Interactions and tool calls the session gives no latency for. */
  without_latency: { interactions: number; tool_calls: number };
}

/** The q-quantile (0–1) of sorted values, interpolated linearly between ranks (numpy's default). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

export function latencyStats(values: readonly number[]): LatencyStats {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (v: number) => Math.round(v * 10) / 10;
  const some = sorted.length > 0;
  return {
    timed: sorted.length,
    p50_ms: some ? round(quantile(sorted, 0.5)) : null,
    p95_ms: some ? round(quantile(sorted, 0.95)) : null,
    max_ms: sorted.at(-1) ?? null,
    total_ms: sorted.reduce((a, b) => a + b, 0),
  };
}

export function sessionLatency(session: Session): SessionLatency {
  const agents = new Map<string, { latencies: number[]; interactions: number; calls: number }>();
  const tools = new Map<string, { latencies: number[]; errors: number; calls: number }>();
  let slowestInteraction: SlowestStep | null = null;
  let slowestCall: SlowestStep | null = null;
  const without = { interactions: 0, tool_calls: 0 };
  let sum = 0;
  session.turns.forEach((turn, t) => {
    turn.agent_interactions.forEach((x, i) => {
      const agent = agents.get(x.agent_id) ?? { latencies: [], interactions: 0, calls: 0 };
      agents.set(x.agent_id, agent);
      agent.interactions++;
      const at: (string | number)[] = ["turns", t, "agent_interactions", i];
      if (x.latency_ms === undefined) without.interactions++;
      else {
        agent.latencies.push(x.latency_ms);
        sum += x.latency_ms;
        if (!slowestInteraction || x.latency_ms > slowestInteraction.latency_ms)
          slowestInteraction = {
            turn_index: turn.turn_index,
            agent_id: x.agent_id,
            latency_ms: x.latency_ms,
            path: issuePath(at),
          };
      }
      x.agent_steps.forEach((step, s) => {
        const call = step.tool_call;
        if (!call) return;
        agent.calls++;
        const tool = tools.get(call.tool_name) ?? { latencies: [], errors: 0, calls: 0 };
        tools.set(call.tool_name, tool);
        tool.calls++;
        if (call.error) tool.errors++;
        if (call.latency_ms === undefined) {
          without.tool_calls++;
          return;
        }
        tool.latencies.push(call.latency_ms);
        if (!slowestCall || call.latency_ms > slowestCall.latency_ms)
          slowestCall = {
            turn_index: turn.turn_index,
            agent_id: x.agent_id,
            tool_name: call.tool_name,
            latency_ms: call.latency_ms,
            path: issuePath([...at, "agent_steps", s, "tool_call", "latency_ms"]),
          };
      });
    });
  });
  const per_agent: SessionLatency["per_agent"] = {};
  for (const [id, a] of agents)
    per_agent[id] = { ...latencyStats(a.latencies), interactions: a.interactions, tool_calls: a.calls };
  const per_tool: SessionLatency["per_tool"] = {};
  for (const [name, t] of tools)
    per_tool[name] = { ...latencyStats(t.latencies), calls: t.calls, errors: t.errors };
  return {
    total_latency_ms: session.total_latency_ms ?? (without.interactions === 0 && sum > 0 ? sum : null),
    per_agent,
    per_tool,
    slowest_interaction: slowestInteraction,
    slowest_tool_call: slowestCall,
    without_latency: without,
  };
}
