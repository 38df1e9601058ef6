// One persona evaluation for the harness commands (baseline, ci, record): every input is read and
// validated before the store is opened, and the result comes back as a harness Measurement.
import { relative, resolve, sep } from "node:path";
import { channelAgents, channelPersonasHash, type Measurement } from "../../harness/index.ts";
import { type EvaluateOptions, type EvaluationOutcome, type EvaluationSetup, evaluate } from "./eval.ts";

/** One evaluation (the same path as `dramaturg eval`), with the stored runs the harness reads hashes from. */
export async function measure(
  setup: EvaluationSetup,
  options: Omit<EvaluateOptions, "dryRun"> = {},
): Promise<EvaluationOutcome> {
  // Without a dry run, evaluate() always returns an outcome.
  return (await evaluate(setup, options))!;
}

/** A path as seen from `baseDir`, with forward slashes, so baselines made on one machine read on another. */
export function portablePath(path: string, baseDir: string): string {
  return relative(baseDir, resolve(path)).split(sep).join("/");
}

/** The harness's view of a measurement; paths are made relative to `baseDir` (the baselines folder). */
export function toMeasurement(measured: EvaluationOutcome, baseDir: string): Measurement {
  const { result, transcript, propositions, runs } = measured;
  const rowOf = new Map(runs.map((r) => [r.id, r]));
  return {
    evaluation_id: result.evaluation_id,
    created_at: new Date().toISOString(),
    source:
      result.source === "store"
        ? "store"
        : result.source
            .split(",")
            .map((f) => portablePath(f, baseDir))
            .join(","),
    judge: {
      provider: result.judge.provider,
      model: result.judge.model,
      ...(result.judge.temperature !== undefined ? { temperature: result.judge.temperature } : {}),
      mode: result.judge.mode as "individual" | "batch",
      prompt_version: result.judge.prompt_version,
    },
    trials: result.judge.trials,
    agents: result.runs.map((r) => ({
      agent_id: r.agent_id,
      name: r.name,
      sample_size: r.sample_size,
      overall_score: r.overall_score,
      errored: r.errored,
      dimensions: r.dimensions,
      run_id: r.run_id,
      propositions_hash: rowOf.get(r.run_id)?.propositions_hash ?? "",
      persona_hash: rowOf.get(r.run_id)?.persona_hash ?? "",
    })),
    channels: result.environments.map((e) => {
      const conv = propositions.sets.environment.get("convergence")?.hash;
      const ideas = propositions.sets.environment.get("ideas_quantity")?.hash;
      return {
        channel: e.channel,
        agents: channelAgents(transcript, e.channel),
        personas_hash: channelPersonasHash(transcript, e.channel),
        propositions_hashes: {
          ...(conv ? { convergence: conv } : {}),
          ...(ideas ? { ideas_quantity: ideas } : {}),
        },
        dimensions: {
          ...(e.dimensions.convergence ? { convergence: e.dimensions.convergence } : {}),
          ...(e.dimensions.ideas_quantity ? { ideas_quantity: e.dimensions.ideas_quantity } : {}),
        },
      };
    }),
  };
}
