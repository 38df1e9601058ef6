// Record once live, replay in CI: the replay of recorded verdicts must give exactly the live scores.
// This lists every score that differs, per agent or channel, dimension and proposition.
import { round } from "../core/index.ts";
import type { MeasuredDimension, Measurement } from "./measurement.ts";

function differ(a: number | null | undefined, b: number | null | undefined): boolean {
  const x = a === null || a === undefined ? null : round(a, 6);
  const y = b === null || b === undefined ? null : round(b, 6);
  return x !== y;
}

function compareDimension(where: string, a?: MeasuredDimension, b?: MeasuredDimension): string[] {
  if (!a || !b) return a || b ? [`${where}: measured in only one of the two runs`] : [];
  const out: string[] = [];
  if (differ(a.score, b.score)) out.push(`${where}: ${a.score} live, ${b.score} replayed`);
  const byId = new Map(b.propositions.map((p) => [p.id, p]));
  for (const p of a.propositions) {
    const q = byId.get(p.id);
    if (differ(p.score, q?.score))
      out.push(`${where} · ${p.id}: ${p.score} live, ${q?.score ?? null} replayed`);
  }
  return out;
}

/** Every score that differs between a live measurement and its replay; empty when they are identical. */
export function replayDifferences(live: Measurement, replay: Measurement): string[] {
  const out: string[] = [];
  for (const a of live.agents) {
    const b = replay.agents.find((x) => x.agent_id === a.agent_id);
    if (!b) {
      out.push(`${a.agent_id}: missing from the replay`);
      continue;
    }
    for (const d of ["adherence", "consistency", "fluency"] as const)
      out.push(...compareDimension(`${a.agent_id} · ${d}`, a.dimensions[d], b.dimensions[d]));
  }
  for (const a of live.channels) {
    const b = replay.channels.find((x) => x.channel === a.channel);
    out.push(
      ...compareDimension(`#${a.channel} · convergence`, a.dimensions.convergence, b?.dimensions.convergence),
    );
    const x = a.dimensions.ideas_quantity?.count;
    const y = b?.dimensions.ideas_quantity?.count;
    if (differ(x, y)) out.push(`#${a.channel} · ideas_quantity: ${x} live, ${y} replayed`);
  }
  return out;
}
