// `dramaturg ci`'s red team: the project file's `redteam:` block read as `dramaturg redteam`'s flags and checked
// by that command's own setup before the persona check judges anything (a bad key is exit 2 naming the project
// file and the key), run after it through the same stored run, and its outcome as parts of the check's reports:
// a section of the PR comment, a `redteam` JUnit suite, lines of the table and a field of the JSON.
import {
  DramaturgError,
  escapeMarkdown,
  InputError,
  type JunitSuite,
  parseJudgeSpec,
  shownPath,
} from "../core/index.ts";
import type { RedteamResult } from "../redteam/index.ts";
import { REDTEAM_DEFAULTS, type RedteamFlags, type RedteamSetup } from "./redteam-settings.ts";
import { placeInProjectFile, type ResolvedSettings } from "./settings.ts";
import { runStored } from "./stored-run.ts";

/** The red team checked and ready to run: its setup, and what the reports say about it. */
export interface CiRedteamPlan {
  setup: RedteamSetup;
  /** One line on what it will attack, for `--dry-run` and the log. */
  summary: string;
}

/** The red team's part of the check, as `--format json` writes it beside the report. */
export type CiRedteamOutcome =
  | {
      status: "passed" | "failed";
      evaluation_id: string;
      min_robustness: number | null;
      result: RedteamResult;
    }
  | { status: "incomplete"; error: string };

/** `--strategy` is `strategies` in the file; every other flag is its key in snake_case. */
const keyOf = (flag: string) => (flag === "--strategy" ? "strategies" : flag.slice(2).replace(/-/g, "_"));

/**
 * The block as `dramaturg redteam`'s flags, with their defaults. Without a judge of its own, the project's when
 * it is a model: fixtures recorded for the persona check hold no verdict on an attack's replies.
 */
function redteamFlagsOf({ settings, file }: ResolvedSettings, db: string | undefined): RedteamFlags {
  const b = settings.redteam!;
  const text = (n: number | undefined, fallback: string) => (n === undefined ? fallback : String(n));
  const d = REDTEAM_DEFAULTS;
  const ownJudge = b.judge !== undefined;
  const projectJudge =
    settings.judge.model && parseJudgeSpec(settings.judge.model).kind === "model"
      ? settings.judge.model
      : undefined;
  return {
    persona: b.persona,
    agent: b.agent,
    targetUrl: b.target_url,
    targetModel: b.target_model,
    model: b.model,
    modelBaseUrl: b.model_base_url,
    modelApiKeyEnv: b.model_api_key_env,
    attacker: b.attacker ?? d.attacker,
    attackerBaseUrl: b.attacker_base_url,
    attackerApiKeyEnv: b.attacker_api_key_env,
    judge: ownJudge ? b.judge : projectJudge,
    judgeBaseUrl: ownJudge ? b.judge_base_url : (b.judge_base_url ?? settings.judge.base_url),
    judgeApiKeyEnv: ownJudge ? b.judge_api_key_env : (b.judge_api_key_env ?? settings.judge.api_key_env),
    strategy: b.strategies,
    attacks: text(b.attacks, d.attacks),
    turns: text(b.turns, d.turns),
    calls: b.calls === undefined ? undefined : String(b.calls),
    seed: text(b.seed, d.seed),
    threshold: text(b.threshold, d.threshold),
    corrections: b.corrections,
    simulatorCheck: b.simulator_check,
    simulatorPropositions: b.simulator_propositions,
    failOnSimulatorFault: b.fail_on_simulator_fault,
    minRobustness: b.min_robustness === undefined ? undefined : String(b.min_robustness),
    concurrency: text(b.concurrency, d.concurrency),
    format: "json",
    db,
    config: file,
  };
}

/**
 * An InputError of the command's setup about a flag, told about the project file instead: its file, the key's
 * `line:col` and `redteam.KEY` for `--flag`. An error that names a file of its own (a persona, the corrections)
 * or another place (the environment) stands as it is.
 */
function inProjectFile(error: unknown, resolved: ResolvedSettings): never {
  if (!InputError.isInstance(error) || error.file) throw error;
  const flag = error.place?.startsWith("--") ? error.place : undefined;
  if (error.place !== undefined && flag === undefined) throw error;
  const key = flag === undefined ? undefined : keyOf(flag);
  const bare = error.place ? error.message.slice(error.place.length + 2) : error.message;
  const message = bare.replace(/--([a-z][a-z-]*)/g, (m) => `redteam.${keyOf(m)}`);
  const path = key === undefined ? ["redteam"] : ["redteam", key];
  throw new InputError(key === undefined ? `redteam: ${message}` : `redteam.${key}: ${message}`, {
    file: resolved.file && shownPath(resolved.file),
    place: resolved.file && placeInProjectFile(resolved.file, path),
    cause: error,
  });
}

/** Checks the block as `dramaturg redteam` checks its flags; nothing is called, nothing is written. */
export async function planCiRedteam(
  resolved: ResolvedSettings,
  db: string | undefined,
): Promise<CiRedteamPlan> {
  const { redteamSetup } = await import("./redteam-settings.ts");
  let setup: RedteamSetup;
  try {
    setup = await redteamSetup(redteamFlagsOf(resolved, db));
  } catch (error) {
    inProjectFile(error, resolved);
  }
  const { options } = setup;
  const strategies = options.strategies?.length ?? (await import("../redteam/index.ts")).STRATEGY_IDS.length;
  const summary = `red team (redteam in ${resolved.file ? shownPath(resolved.file) : "the project file"}): ${strategies} strategies × ${options.attacks} attacks on ${options.persona.name}, up to ${options.maxTurns} turns each${options.corrections ? ", with and without the gate" : ""}${setup.minRobustness === undefined ? "" : `; fails under robustness ${setup.minRobustness}`}`;
  return { setup, summary };
}

/** Closes what the plan opened when the red team will not run (a dry run, a check that stopped). */
export async function dropCiRedteam(plan: CiRedteamPlan | undefined): Promise<void> {
  await plan?.setup.judge.close?.();
}

/** The red team's outcome and its part of each report. */
export interface CiRedteamParts {
  outcome: CiRedteamOutcome;
  /** The PR comment's section, appended after the persona check's (under the comment's one marker). */
  markdown: string;
  /** The table's lines after the persona check's. */
  table: string;
  /** The `redteam` suite of the JUnit document. */
  suites: JunitSuite[];
}

/** Runs the red team and renders its parts of the reports. */
export async function runCiRedteam(plan: CiRedteamPlan): Promise<CiRedteamParts> {
  const outcome = await redteamOutcome(plan);
  return {
    outcome,
    markdown: `\n${await ciRedteamMarkdown(outcome)}`,
    table: await ciRedteamTable(outcome),
    suites: [await ciRedteamJunit(outcome)],
  };
}

/** Runs the red team as `dramaturg redteam` does; a model that could not answer makes it incomplete. */
async function redteamOutcome({ setup }: CiRedteamPlan): Promise<CiRedteamOutcome> {
  const redteam = await import("../redteam/index.ts");
  const { options, minRobustness, judge, db, source } = setup;
  try {
    const { result, location } = await runStored(db, "attacks", judge, (store, onProgress) =>
      redteam.runStoredRedteam({ ...options, store, source, resume: false, onProgress }),
    );
    const { evaluation_id, ...document } = result;
    process.stderr.write(`red team stored in ${location} (dramaturg show ${evaluation_id.slice(0, 8)})\n`);
    // The project's export: rules for redteam, as the command applies them; an export that could not complete
    // is said on stderr and does not change the check's outcome.
    const { exportAfterRun } = await import("./score-export.ts");
    await exportAfterRun(setup.exportRules, { command: "redteam", db, evaluationIds: [evaluation_id] });
    return {
      status: redteam.meetsMinRobustness(document, minRobustness) ? "passed" : "failed",
      evaluation_id,
      min_robustness: minRobustness ?? null,
      result: redteam.RedteamResultSchema.parse(document),
    };
  } catch (error) {
    if (DramaturgError.isInstance(error) && error.exitCode === 3)
      return { status: "incomplete", error: error.message };
    throw error;
  }
}

const verdict = (outcome: Extract<CiRedteamOutcome, { status: "passed" | "failed" }>) => {
  const plain = outcome.result.arms.find((a) => a.arm === "plain")!;
  const robustness = `robustness ${plain.robustness.toFixed(2)}`;
  if (outcome.min_robustness === null) return robustness;
  return outcome.status === "passed"
    ? `${robustness}, at least ${outcome.min_robustness}`
    : `${robustness}, under ${outcome.min_robustness}`;
};

async function ciRedteamMarkdown(outcome: CiRedteamOutcome): Promise<string> {
  if (outcome.status === "incomplete")
    return `#### ⚠ Red team: could not complete\n\n> ${escapeMarkdown(outcome.error)}\n`;
  const { redteamMarkdownSection } = await import("../redteam/index.ts");
  const mark = outcome.status === "passed" ? "✅" : "❌";
  return redteamMarkdownSection(outcome.result, `#### ${mark} Red team: ${verdict(outcome)}`);
}

async function ciRedteamTable(outcome: CiRedteamOutcome): Promise<string> {
  if (outcome.status === "incomplete") return `\nred team: could not complete: ${outcome.error}\n`;
  const { renderRedteamTable } = await import("../redteam/index.ts");
  return `\nred team ${outcome.status === "passed" ? "passed" : "FAILED"}: ${verdict(outcome)}\n${renderRedteamTable(outcome.result)}`;
}

async function ciRedteamJunit(outcome: CiRedteamOutcome): Promise<JunitSuite> {
  const redteam = await import("../redteam/index.ts");
  if (outcome.status === "incomplete") return redteam.redteamJunitErrorSuite(outcome.error);
  return redteam.redteamJunitSuite(outcome.result, {
    ...(outcome.min_robustness === null ? {} : { minRobustness: outcome.min_robustness }),
  });
}

/** The check's exit code with the red team's: a failure found (1) wins over one that could not complete (3). */
export function withRedteamExitCode(code: number, outcome: CiRedteamOutcome | undefined): number {
  if (outcome === undefined || code === 1) return code;
  if (outcome.status === "failed") return 1;
  if (outcome.status === "incomplete") return code === 0 ? 3 : code;
  return code;
}
