// `redteam`'s flags checked, once, into what runRedteam needs: the persona (a file, or a stored agent), the
// target (an agent's endpoint or a model, as `drift` takes them), the attacker (scripted, or a model through
// the judge's providers), the judge, the strategies and budgets, and the corrections settings of the gated
// arm, and the check of the attacker as a simulated user. Bad input stops here, before any model is called.
import {
  type CorrectionSettingsPatch,
  CorrectionSettingsPatchSchema,
  InputError,
  parseLocatedYaml,
  readInputFile,
} from "../core/index.ts";
import type { ExportRule } from "../export/index.ts";
import { createJudge, createJudgeModel, type Judge } from "../judge/index.ts";
import {
  type Attacker,
  modelAttacker,
  type RedteamOptions,
  STRATEGY_IDS,
  type StrategyId,
  scriptedAttacker,
} from "../redteam/index.ts";
import { driftPersonas, driftTarget } from "./drift-settings.ts";
import { wholeFlag } from "./flags.ts";
import { resolveSettings } from "./settings.ts";
import { type SimulatorCheckFlags, simulatorCheckOf } from "./simulator-check-flags.ts";

/** The flags' defaults: the command's options and the project file's `redteam:` block (ci) take them from here. */
export const REDTEAM_DEFAULTS = {
  attacker: "scripted",
  attacks: "10",
  turns: "12",
  seed: "1",
  threshold: "5",
  concurrency: "4",
} as const;

export interface RedteamFlags extends SimulatorCheckFlags {
  persona?: string[];
  agent?: string[];
  targetUrl?: string;
  targetModel?: string;
  model?: string;
  modelBaseUrl?: string;
  modelApiKeyEnv?: string;
  attacker: string;
  attackerBaseUrl?: string;
  attackerApiKeyEnv?: string;
  judge?: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  strategy?: string[];
  attacks: string;
  turns: string;
  calls?: string;
  seed: string;
  threshold: string;
  corrections?: string;
  minRobustness?: string;
  concurrency: string;
  resume?: boolean;
  format: "table" | "markdown" | "json";
  out?: string;
  /** Also write the JUnit XML here: a test case per arm × strategy and one for the robustness. */
  junit?: string;
  db?: string;
  config?: string;
}

export interface RedteamSetup {
  options: RedteamOptions;
  minRobustness?: number;
  judge: Judge;
  db: string;
  source: string;
  /** The project's `export:` rules, applied when the run is stored. */
  exportRules: ExportRule[];
}

/** The corrections settings of a YAML or JSON file (the keys of `dramaturg schema config`'s corrections). */
export function loadCorrectionsFile(file: string): CorrectionSettingsPatch {
  const text = readInputFile(file, "the corrections file");
  const settings = parseLocatedYaml(text, file, CorrectionSettingsPatchSchema).data;
  const gating = Object.entries(settings).some(([key, on]) => /^gate_.*_enabled$/.test(key) && on === true);
  if (!gating)
    throw new InputError(
      "no gate check is on; expected gate_adherence_enabled: true (or another gate_…_enabled)",
      { file },
    );
  return settings;
}

function attackerOf(flags: RedteamFlags): Attacker {
  if (flags.attacker === "scripted") return scriptedAttacker();
  const { model } = createJudgeModel(flags.attacker, {
    baseUrl: flags.attackerBaseUrl,
    apiKeyEnv: flags.attackerApiKeyEnv,
    probe: {
      role: "attacker model",
      fix: "check that the server is running and --attacker-base-url, then try again",
    },
  });
  return modelAttacker(model, { descriptor: flags.attacker });
}

export async function redteamSetup(given: RedteamFlags): Promise<RedteamSetup> {
  const flags = { ...given, persona: given.persona ?? [], agent: given.agent ?? [] };
  const attacks = wholeFlag(flags.attacks, "--attacks", 1)!;
  const maxTurns = wholeFlag(flags.turns, "--turns", 1)!;
  const maxCalls = wholeFlag(flags.calls, "--calls", 1);
  const firstSeed = wholeFlag(flags.seed, "--seed", 0)!;
  const concurrency = wholeFlag(flags.concurrency, "--concurrency", 1)!;
  const threshold = Number(flags.threshold);
  if (flags.threshold.trim() === "" || !(threshold >= 0 && threshold <= 9))
    throw new InputError(`expected an adherence from 0 to 9, got "${flags.threshold}"`, {
      place: "--threshold",
    });
  let minRobustness: number | undefined;
  if (flags.minRobustness !== undefined) {
    minRobustness = Number(flags.minRobustness);
    if (flags.minRobustness.trim() === "" || !(minRobustness >= 0 && minRobustness <= 1))
      throw new InputError(`expected a share from 0 to 1, got "${flags.minRobustness}"`, {
        place: "--min-robustness",
      });
  }
  const strategies = (flags.strategy ?? []).map((s): StrategyId => {
    if (!(STRATEGY_IDS as readonly string[]).includes(s))
      throw new InputError(`no strategy "${s}"; expected one of ${STRATEGY_IDS.join(", ")}`, {
        place: "--strategy",
      });
    return s as StrategyId;
  });
  if (flags.judge === undefined)
    throw new InputError("give --judge SPEC: each reply is scored on the persona's adherence propositions");
  const corrections = flags.corrections === undefined ? undefined : loadCorrectionsFile(flags.corrections);
  const simulatedUser = simulatorCheckOf(flags, "attacker");
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  const personas = await driftPersonas(flags, settings.db);
  if (personas.length !== 1)
    throw new InputError(
      `a red team attacks one persona; the files hold ${personas.map((p) => p.id).join(", ")}: pick one with --agent`,
      { place: "--agent" },
    );
  const target = driftTarget(flags);
  const attacker = attackerOf(flags);
  // One judge request per turn and one turn per attack at a time: as many calls in flight as attacks.
  const judge = createJudge(flags.judge, {
    baseUrl: flags.judgeBaseUrl,
    apiKeyEnv: flags.judgeApiKeyEnv,
    concurrency,
  });
  return {
    options: {
      persona: personas[0]!,
      target,
      attacker,
      judge,
      ...(strategies.length ? { strategies } : {}),
      attacks,
      firstSeed,
      maxTurns,
      ...(maxCalls !== undefined ? { maxCalls } : {}),
      threshold,
      ...(corrections ? { corrections } : {}),
      simulatedUser,
      concurrency,
    },
    minRobustness,
    judge,
    db: settings.db,
    exportRules: settings.export,
    source: flags.persona.length > 0 ? flags.persona.join(", ") : `agent ${flags.agent.join(", ")}`,
  };
}
