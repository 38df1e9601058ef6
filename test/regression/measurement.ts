// Builds a harness Measurement that reproduces the committed demo baselines, for tests to change.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  type Baseline,
  type BaselineFolder,
  type EnvironmentBaseline,
  type Measurement,
  parseBaseline,
  parseEnvironmentBaseline,
} from "../../src/regression/index.ts";

export const BASELINES = fileURLToPath(new URL("../../examples/ensemble/baselines/", import.meta.url));

export function demoBaseline(agent: string): Baseline {
  const file = `${BASELINES}${agent}.json`;
  return parseBaseline(readFileSync(file, "utf8"), file, agent);
}

export function demoEnvironments(): EnvironmentBaseline {
  const file = `${BASELINES}_environments.json`;
  return parseEnvironmentBaseline(readFileSync(file, "utf8"), file);
}

export function demoFolder(agents = ["dov", "ines", "priya", "wendell"]): BaselineFolder {
  return {
    dir: BASELINES,
    agents: new Map(agents.map((a) => [a, { baseline: demoBaseline(a), file: `${a}.json` }])),
    environments: { baseline: demoEnvironments(), file: "_environments.json" },
  };
}

/** What measuring the demo again gives: the baselines' own numbers, with `trials` copies of each score. */
export function measurementOf(folder: BaselineFolder, trials = 1): Measurement {
  const any = [...folder.agents.values()][0]!.baseline;
  const dim = (d: NonNullable<Baseline["dimensions"]["adherence"]>) => ({
    score: d.score,
    trials: Array.from({ length: trials }, (_, i) => ({ trial: i + 1, score: d.score })),
    propositions_hash: d.propositions_hash,
    propositions: d.propositions.map((p) => ({
      id: p.id,
      score: p.score,
      weight: p.weight,
      inverted: p.inverted,
      recommendations_for_improvement: p.recommendations,
    })),
  });
  return {
    evaluation_id: "00000000-0000-4000-8000-000000000000",
    created_at: "2026-03-01T00:00:00.000Z",
    source: any.source,
    judge: any.judge,
    trials,
    agents: [...folder.agents.values()].map(({ baseline: b }) => ({
      agent_id: b.agent.id,
      name: b.agent.name,
      sample_size: b.sample_size,
      overall_score: b.overall_score,
      errored: 0,
      dimensions: Object.fromEntries(Object.entries(b.dimensions).map(([k, d]) => [k, dim(d)])),
      run_id: b.run_id,
      propositions_hash: b.propositions_hash,
      persona_hash: b.persona_hash,
    })),
    channels: Object.entries(folder.environments?.baseline.channels ?? {}).map(([channel, c]) => ({
      channel,
      agents: c.agents,
      personas_hash: c.personas_hash,
      propositions_hashes: {
        ...(c.convergence ? { convergence: c.convergence.propositions_hash } : {}),
        ...(c.ideas_quantity ? { ideas_quantity: c.ideas_quantity.propositions_hash } : {}),
      },
      dimensions: {
        ...(c.convergence ? { convergence: dim(c.convergence) } : {}),
        ...(c.ideas_quantity
          ? {
              ideas_quantity: {
                count: c.ideas_quantity.count,
                trials: Array.from({ length: trials }, (_, i) => ({
                  trial: i + 1,
                  count: c.ideas_quantity!.count,
                })),
              },
            }
          : {}),
      },
    })),
  };
}

/** Lowers an agent dimension (and each of its propositions) by `by` points in the given trials. */
export function lower(
  m: Measurement,
  agent: string,
  dimension: "adherence" | "consistency" | "fluency",
  by: number[],
) {
  const d = m.agents.find((a) => a.agent_id === agent)!.dimensions[dimension]!;
  const base = d.score!;
  d.trials = by.map((b, i) => ({ trial: i + 1, score: base - b }));
  d.score = base - by.reduce((x, y) => x + y, 0) / by.length;
  const mean = by.reduce((x, y) => x + y, 0) / by.length;
  for (const p of d.propositions) if (p.score !== null) p.score = Math.max(0, p.score - mean);
}
