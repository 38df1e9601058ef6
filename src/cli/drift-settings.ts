// `drift`'s flags checked, once, into what runDrift needs: the personas (files, or stored agents), the
// probes (a file, else the built-in suite), the numbers, the target (an agent's endpoint or a model), the
// partner (self-chat or a simulated user) and a judge when a probe asks for one. Bad input stops here,
// before any model is called.
import { InputError } from "../core/index.ts";
import type { ExportRule } from "../export/index.ts";
import { createJudge, createJudgeModel, type Judge } from "../judge/index.ts";
import {
  agentTarget,
  builtinProbes,
  type ChatTarget,
  type DriftOptions,
  type DriftPersona,
  languageModelTarget,
  loadPersonaFile,
  loadProbeFile,
  pickPersonas,
  simulatedUserPartner,
} from "../redteam/index.ts";
import { wholeFlag } from "./flags.ts";
import { resolveSettings } from "./settings.ts";
import { simulatedUserModel } from "./simulated-user-model.ts";
import type { TargetFlags } from "./target-flags.ts";

export interface DriftFlags extends TargetFlags {
  /** Absent when not given (commander collects repeats into a list). */
  persona?: string[];
  agent?: string[];
  targetModel?: string;
  model?: string;
  modelBaseUrl?: string;
  modelApiKeyEnv?: string;
  partner: "self" | "user";
  judge?: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  turns: string;
  seeds: string;
  seed: string;
  probes?: string;
  bar: string;
  minStability?: string;
  concurrency: string;
  format: "table" | "markdown" | "json";
  out?: string;
  db?: string;
  config?: string;
}

export interface DriftSetup {
  /** What runDrift is given, the judge included. */
  options: DriftOptions;
  minStability?: number;
  judge?: Judge;
  /** Where the run is stored. */
  db: string;
  /** The persona files as recorded, or the stored agents' ids. */
  source: string;
  /** The project's `export:` rules, applied when the run is stored. */
  exportRules: ExportRule[];
}

/** A share from 0 to 1 (`--bar`, `--min-stability`), or undefined when the flag is absent. */
export function shareFlag(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !(n >= 0 && n <= 1))
    throw new InputError(`expected a share from 0 to 1, got "${value}"`, { place: flag });
  return n;
}

/**
 * The personas: those of the files (`--agent` picks among them), else the stored agents `--agent` names. Shared
 * with `redteam`, which attacks one of them.
 */
export async function driftPersonas(
  flags: { persona: string[]; agent: string[] },
  db: string,
): Promise<DriftPersona[]> {
  if (flags.persona.length > 0) return pickPersonas(flags.persona.flatMap(loadPersonaFile), flags.agent);
  if (flags.agent.length === 0) throw new InputError("give --persona FILE or --agent ID (a stored agent)");
  const { openStore, storeExists } = await import("../store/index.ts");
  if (!storeExists(db))
    throw new InputError(`no store at ${db} to read agents from; give --persona FILE`, {
      place: "--agent",
    });
  const store = await openStore(db);
  try {
    const personas: DriftPersona[] = [];
    for (const id of flags.agent) {
      const row = await store.agents.get(id);
      if (!row) throw new InputError(`no stored agent "${id}" in ${store.location}`, { place: "--agent" });
      personas.push({ id: row.id, name: row.name, persona: row.persona });
    }
    return personas;
  } finally {
    await store.close();
  }
}

/** The agent under test: an OpenAI-compatible endpoint (`--target-url`) or a model (`--model`); `redteam`'s too. */
export function driftTarget(
  flags: Pick<DriftFlags, "targetUrl" | "targetModel" | "model" | "modelBaseUrl" | "modelApiKeyEnv">,
): ChatTarget {
  if ((flags.targetUrl === undefined) === (flags.model === undefined))
    throw new InputError(
      "give the target as --target-url URL (an agent) or --model SPEC (a model), one of them",
    );
  if (flags.targetUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(flags.targetUrl);
    } catch {
      throw new InputError(`not a URL: "${flags.targetUrl}"`, { place: "--target-url" });
    }
    return agentTarget({ url: url.href, ...(flags.targetModel ? { chatbot: flags.targetModel } : {}) });
  }
  const { model } = createJudgeModel(flags.model!, {
    baseUrl: flags.modelBaseUrl,
    apiKeyEnv: flags.modelApiKeyEnv,
    probe: {
      role: "target model",
      fix: "check that the server is running and --model-base-url, then try again",
    },
  });
  return languageModelTarget(model);
}

export async function driftSetup(given: DriftFlags): Promise<DriftSetup> {
  const flags = { ...given, persona: given.persona ?? [], agent: given.agent ?? [] };
  const turns = wholeFlag(flags.turns, "--turns", 2)!;
  const seeds = wholeFlag(flags.seeds, "--seeds", 1)!;
  const firstSeed = wholeFlag(flags.seed, "--seed", 0)!;
  const concurrency = wholeFlag(flags.concurrency, "--concurrency", 1)!;
  const bar = shareFlag(flags.bar, "--bar")!;
  const minStability = shareFlag(flags.minStability, "--min-stability");
  const probes = flags.probes === undefined ? builtinProbes() : loadProbeFile(flags.probes);
  if (flags.partner === "user" && flags.userModel === undefined)
    throw new InputError("--partner user needs --user-model (the simulated user's model)");
  const needsJudge = probes.some((p) => p.checker.type === "judge");
  if (needsJudge && flags.judge === undefined)
    throw new InputError(`${flags.probes}: a probe is checked by a judge proposition; give --judge`);
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  const personas = await driftPersonas(flags, settings.db);
  const target = driftTarget(flags);
  const userModel = flags.partner === "user" ? simulatedUserModel(flags) : undefined;
  const judge =
    needsJudge && flags.judge
      ? createJudge(flags.judge, { baseUrl: flags.judgeBaseUrl, apiKeyEnv: flags.judgeApiKeyEnv })
      : undefined;
  return {
    options: {
      personas,
      target,
      ...(userModel
        ? { partner: simulatedUserPartner(userModel), partnerKind: "simulated-user" as const }
        : {}),
      probes,
      probeSource: flags.probes ?? "built-in",
      turns,
      seeds,
      firstSeed,
      bar,
      judge,
      concurrency,
    },
    minStability,
    judge,
    db: settings.db,
    exportRules: settings.export,
    source: flags.persona.length > 0 ? flags.persona.join(", ") : `agents ${flags.agent.join(", ")}`,
  };
}
