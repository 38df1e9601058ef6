// `dramaturg eval --resume [ID]`: completes an interrupted evaluation in place. It re-reads the inputs
// the evaluation recorded, checks they are unchanged, and judges only the verdicts not yet stored.
import { z } from "zod";
import { InputError, PERSONA_DIMENSIONS } from "../core/index.ts";
import { loadPropositions } from "../propositions/index.ts";
import type { EvalResult } from "../scorers/index.ts";
import { type EvaluationRow, openStore, type Store, storeExists } from "../store/index.ts";
import type { EvalFlags } from "./commands/eval.ts";
import { createJudge, withVerdictCache } from "./judge-setup.ts";
import { type PersonaRunConfig, planFor, runPersonaEvaluation } from "./persona-run.ts";
import { createProgress } from "./progress.ts";
import { resolveSettings, type Settings } from "./settings.ts";
import { loadTranscripts, transcriptFromStore, transcriptHash } from "./sources.ts";

/** What an evaluation stored about itself; validated because it may come from another version. */
const StoredConfigSchema = z.object({
  source: z.string(),
  propositions: z.string().optional(),
  judge: z.string(),
  judge_base_url: z.string().optional(),
  mode: z.enum(["individual", "batch"]),
  trials: z.number().int().min(1),
  dimensions: z.array(z.enum(PERSONA_DIMENSIONS)).min(1),
  agents: z.array(z.string()).optional(),
  sample: z.object({ size: z.number().int(), seed: z.number().int() }).optional(),
  window_start: z.string().optional(),
  window_end: z.string().optional(),
  transcript_hash: z.string(),
});

async function findEvaluation(store: Store, id: string | undefined): Promise<EvaluationRow> {
  if (id === undefined) {
    const latest = await store.evaluations.latestIncomplete("persona");
    if (!latest)
      throw new InputError("no interrupted evaluation to resume in this store", { place: store.location });
    return latest;
  }
  if (id.length < 8)
    throw new InputError("give at least the first 8 characters of the id", { place: "--resume" });
  const direct = id.length === 36 ? await store.evaluations.get(id) : undefined;
  if (direct) return direct;
  const run = id.length === 36 ? await store.runs.get(id) : undefined;
  if (run?.evaluation_id) return (await store.evaluations.get(run.evaluation_id))!;
  // A prefix, as `dramaturg runs` prints them: search recent evaluations and runs.
  const evaluations = (await store.evaluations.list({ kind: "persona", limit: 500 })).filter((e) =>
    e.id.startsWith(id),
  );
  const runs = (await store.runs.list({ limit: 2000 })).filter((r) => r.id.startsWith(id) && r.evaluation_id);
  const ids = new Set([...evaluations.map((e) => e.id), ...runs.map((r) => r.evaluation_id!)]);
  if (ids.size === 0) throw new InputError(`no evaluation or run with id ${id}`, { place: "--resume" });
  if (ids.size > 1)
    throw new InputError(`id ${id} is ambiguous; give more characters`, { place: "--resume" });
  return (await store.evaluations.get([...ids][0]!))!;
}

export async function resumeEvaluation(
  id: string | undefined,
  flags: EvalFlags,
): Promise<{ result: EvalResult; settings: Settings }> {
  const { settings } = resolveSettings({
    // The judge's own settings (concurrency, timeout, retries, cache) may change between the two parts.
    flags: {
      db: flags.db,
      judge: flags.judge,
      judgeApiKeyEnv: flags.judgeApiKeyEnv,
      concurrency: flags.concurrency,
      timeout: flags.timeout,
      retries: flags.retries,
      cache: flags.cache,
    },
    projectFile: flags.config,
  });
  if (!storeExists(settings.db)) throw new InputError("no store here to resume from", { place: settings.db });
  const store = await openStore(settings.db);
  try {
    const evaluation = await findEvaluation(store, id);
    if (evaluation.status === "completed")
      throw new InputError(
        `evaluation ${evaluation.id.slice(0, 8)} is already completed; nothing to resume`,
        {
          place: "--resume",
        },
      );
    const parsed = StoredConfigSchema.safeParse(evaluation.config);
    if (!parsed.success)
      throw new InputError(
        `evaluation ${evaluation.id} has no resumable configuration (stored by another version?)`,
      );
    const config: PersonaRunConfig = parsed.data;
    const transcript =
      config.source === "store"
        ? await transcriptFromStore(store, { from: config.window_start, to: config.window_end })
        : loadTranscripts(config.source.split(",")).transcript;
    if (transcriptHash(transcript) !== config.transcript_hash)
      throw new InputError(
        "the transcript changed since this evaluation started; its stored verdicts no longer apply — run a new evaluation",
        { file: config.source },
      );
    const propositions = await loadPropositions({
      dir: config.propositions,
      dimensions: config.dimensions,
      agentIds: transcript.agents.map((a) => a.id),
    });
    if (evaluation.propositions_hash && propositions.hash !== evaluation.propositions_hash)
      throw new InputError("the propositions changed since this evaluation started — run a new evaluation", {
        file: config.propositions ?? "built-in propositions",
      });
    // The judge it started with, unless the user names another (e.g. the same model behind a new URL).
    const judgeSettings = {
      ...settings,
      judge: {
        ...settings.judge,
        model: flags.judge ?? config.judge,
        base_url: flags.judgeBaseUrl ?? settings.judge.base_url ?? config.judge_base_url,
        mode: config.mode,
      },
    };
    const { judge, cache } = withVerdictCache(createJudge(judgeSettings), store.verdictCache, judgeSettings);
    try {
      const result = await runPersonaEvaluation({
        transcript,
        config,
        plan: planFor({ transcript, config, propositions }),
        propositions,
        judge,
        store,
        concurrency: judgeSettings.judge.concurrency,
        progress: createProgress("resuming", flags.progress !== false && process.stderr.isTTY === true),
        record: flags.record,
        resume: evaluation.id,
        cache,
      });
      return { result, settings: judgeSettings };
    } finally {
      await judge.close?.();
    }
  } finally {
    await store.close();
  }
}
