// `calibrate`'s flags checked once, with the project's settings (the judge's, the propositions, the store,
// the `minimum` threshold), before any label is read or store opened.
import { InputError } from "../core/index.ts";
import { kappaFlag, wholeFlag } from "./flags.ts";
import { resolveSettings, type Settings } from "./settings.ts";

export interface CalibrateFlags {
  labels: string[];
  run?: string;
  transcript?: string;
  judge?: string[];
  propositions?: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  mode?: string;
  trials?: string;
  concurrency?: string;
  timeout?: string;
  retries?: string;
  cache?: boolean;
  progress?: boolean;
  orderEffects?: boolean;
  db?: string;
  config?: string;
  minKappa?: string;
  minimum?: string;
  resamples?: string;
  seed?: string;
  format?: string;
  out?: string;
}

export interface CalibrationSettings {
  format: "table" | "json" | "markdown" | "html";
  minKappa: number;
  resamples?: number;
  seed?: number;
  /** The "fails" threshold: --minimum, else the project's when all its dimensions share one. */
  minimum?: number;
  /** The judges to judge the labelled items with, each once, in the order given. */
  judges: string[];
  settings: Settings;
}

export function calibrationSettings(flags: CalibrateFlags): CalibrationSettings {
  const format = flags.format ?? "table";
  if (!["table", "json", "markdown", "html"].includes(format))
    throw new InputError(`--format must be table, json, markdown or html, got ${JSON.stringify(format)}`);
  const minKappa = kappaFlag(flags.minKappa, "--min-kappa") ?? 0.6;
  const resamples = wholeFlag(flags.resamples, "--resamples", 0);
  const seed = wholeFlag(flags.seed, "--seed", 0);
  if (seed !== undefined && seed >= 2 ** 32)
    throw new InputError(`expected a whole number below 2^32, got "${flags.seed}"`, { place: "--seed" });
  const given = minimumFlag(flags.minimum);
  if (flags.run === undefined && flags.transcript === undefined)
    throw new InputError(
      "give the stored evaluation (--run ID) or the transcript the labels are of (--transcript FILE)",
      { place: "--run" },
    );
  if (flags.run !== undefined && flags.transcript !== undefined)
    throw new InputError("give either --run or --transcript, not both", { place: "--transcript" });
  if (flags.transcript !== undefined && !flags.judge?.length)
    throw new InputError("a transcript has no verdicts of its own: give --judge SPEC to judge it", {
      place: "--judge",
    });
  const judges = [...new Set(flags.judge ?? [])];
  const { settings } = resolveSettings({
    flags: {
      db: flags.db,
      propositions: flags.propositions,
      judge: judges[0],
      judgeBaseUrl: flags.judgeBaseUrl,
      judgeApiKeyEnv: flags.judgeApiKeyEnv,
      mode: flags.mode,
      trials: flags.trials,
      concurrency: flags.concurrency,
      timeout: flags.timeout,
      retries: flags.retries,
      cache: flags.cache,
    },
    projectFile: flags.config,
  });
  const minimum = given ?? projectMinimum(settings.thresholds.minimum);
  return {
    format: format as CalibrationSettings["format"],
    minKappa,
    resamples,
    seed,
    minimum,
    judges,
    settings,
  };
}

/** The project's minimum when every dimension that sets one sets the same number; else none. */
function projectMinimum(minimum: Partial<Record<string, number>>): number | undefined {
  const values = new Set(Object.values(minimum).filter((v): v is number => typeof v === "number"));
  return values.size === 1 ? [...values][0] : undefined;
}

function minimumFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = Number(value);
  if (value.trim() === "" || !Number.isFinite(m) || m < 0 || m > 10)
    throw new InputError(`expected a score from 0 to 10, got "${value}"`, { place: "--minimum" });
  return m;
}
