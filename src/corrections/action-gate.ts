// The action gate: where an agent's message is about to be committed, it is judged on every enabled
// dimension at once and checked against the agent's recent messages; a failure is fed back for a
// regeneration (at most `max_correction_attempts` times), and the best attempt is committed.
import {
  ACTION_LEVEL_WINDOW_DEFAULTS,
  type Agent,
  addUsage,
  type CorrectionOutcome,
  type CorrectionSettings,
  CorrectionSettingsSchema,
  DramaturgError,
  firstIssue,
  GATE_DIMENSIONS,
  type GateDimension,
  type GateDimensionScore,
  InputError,
  issuePath,
  type TokenUsage,
  validateInput,
  type Window,
  ZERO_USAGE,
} from "../core/index.ts";
import type { Judge } from "../judge/index.ts";
import type { CorrectionLogSink, GateAttemptSummary, GateLogEntry } from "./correction-log.ts";
import { type GateAttempt, type GateFeedback, gateFeedback } from "./feedback.ts";
import { type GatePropositionSets, gatePropositionSetsFor } from "./gate-propositions.ts";
import { type DimensionJudgement, type GateHistoryEntry, judgeDimension } from "./judge-dimension.ts";
import { actionSimilarity, RECENT_MESSAGES } from "./similarity.ts";

/** The seed's per-dimension judge deadline: past it the dimension passes (fail-open). */
export const GATE_TIMEOUT_MS = 5_000;

export interface ActionGateOptions {
  /** Judges the dimensions. Needed when any dimension is enabled; a similarity-only gate needs none. */
  judge?: Judge;
  /**
   * The agent's correction settings (`agent_evaluation_config`); missing fields take the seed's defaults,
   * which leave every check off.
   */
  config?: Partial<CorrectionSettings>;
  /** Proposition sets by dimension; the built-in ones for those left out. */
  propositions?: GatePropositionSets;
  /** Trajectory window shown to the judge. Default the action-level `first_n: 5, last_n: 10`. */
  window?: Window;
  /** Per-dimension judge deadline in ms. Default 5,000. */
  timeoutMs?: number;
  /** Receives one entry per check (not called when every check is off). */
  log?: CorrectionLogSink;
  /** The run the checked messages belong to, written to each entry. */
  runId?: string;
}

/** Writes the next attempt from the feedback on the failed ones; returns the new message text. */
export type Regenerate = (feedback: GateFeedback, attempt: number) => string | Promise<string>;

export interface GateCheckInput {
  /** Who is about to send the message: id, display name and persona. */
  agent: Agent;
  /** The message the agent is about to send. */
  tentativeText: string;
  /** What the agent saw and sent before, oldest first. Default none. */
  history?: readonly GateHistoryEntry[];
  /** Asked for a new attempt after a failed one; without it the first attempt is the only one. */
  regenerate?: Regenerate;
}

export interface GateCheckResult {
  /** The text to commit: the first attempt that passed, or the best one. */
  text: string;
  outcome: CorrectionOutcome;
  committed: GateAttempt;
  /** Every attempt, oldest first. */
  attempts: GateAttempt[];
  /** What was logged (also returned when the gate has no sink); null when every check is off. */
  entry: GateLogEntry | null;
}

export interface ActionGate {
  /** The settings in force (defaults filled in). */
  readonly config: Readonly<CorrectionSettings>;
  /** The dimensions judged, in order. */
  readonly dimensions: readonly GateDimension[];
  /** Whether any check is on; a gate with none commits every message as it is. */
  readonly enabled: boolean;
  check(input: GateCheckInput): Promise<GateCheckResult>;
}

/**
 * Thrown when no attempt passed and `continue_on_failure` is false: the message must not be sent. The check
 * was logged first, with outcome `rejected` (its `entry`).
 */
export class ActionRejectedError extends DramaturgError {
  readonly attempts: GateAttempt[];
  /** What was logged: the best attempt's scores, outcome `rejected`, no corrected text (nothing was sent). */
  readonly entry: GateLogEntry;
  constructor(attempts: GateAttempt[], entry: GateLogEntry) {
    super("ActionRejectedError", `the message failed the action gate in all ${attempts.length} attempts`, {
      exitCode: 1,
    });
    this.attempts = attempts;
    this.entry = entry;
  }
  static override isInstance(error: unknown): error is ActionRejectedError {
    return DramaturgError.isInstance(error) && error.name === "ActionRejectedError";
  }
}

const THRESHOLD_KEY = {
  adherence: "gate_adherence_threshold",
  consistency: "gate_consistency_threshold",
  fluency: "gate_fluency_threshold",
  suitability: "gate_suitability_threshold",
} as const satisfies Record<GateDimension, keyof CorrectionSettings>;
const ENABLED_KEY = {
  adherence: "gate_adherence_enabled",
  consistency: "gate_consistency_enabled",
  fluency: "gate_fluency_enabled",
  suitability: "gate_suitability_enabled",
} as const satisfies Record<GateDimension, keyof CorrectionSettings>;

export function createActionGate(options: ActionGateOptions = {}): ActionGate {
  const parsed = validateInput(CorrectionSettingsSchema, options.config ?? {});
  if (!parsed.success) {
    const { path, message } = firstIssue(parsed.error);
    throw new InputError(`action gate config: ${issuePath(path)}: ${message}`);
  }
  const config = Object.freeze(parsed.data);
  const dimensions = GATE_DIMENSIONS.filter((d) => config[ENABLED_KEY[d]]);
  const judge = options.judge;
  if (dimensions.length > 0 && !judge)
    throw new InputError(`the action gate judges ${dimensions.join(", ")} and needs a judge`);
  const window = options.window ?? ACTION_LEVEL_WINDOW_DEFAULTS;
  const timeoutMs = options.timeoutMs ?? GATE_TIMEOUT_MS;
  if (!(timeoutMs > 0 && Number.isFinite(timeoutMs)))
    throw new InputError(
      `action gate timeoutMs: expected a positive number of milliseconds, got ${timeoutMs}`,
    );
  const enabled = dimensions.length > 0 || config.gate_similarity_enabled;
  const maxAttempts = 1 + config.max_correction_attempts;

  // Read now, not in the first check: the judge deadline then counts from the message's arrival.
  const sets = gatePropositionSetsFor(dimensions, options.propositions);

  async function judgeAttempt(
    number: number,
    text: string,
    agent: Agent,
    history: readonly GateHistoryEntry[],
    recent: readonly string[],
    usage: { total: TokenUsage; calls: number },
  ): Promise<GateAttempt> {
    // Every enabled dimension at once (one judge round trip of latency, not one per dimension), in GATE_DIMENSIONS order.
    const judged = await Promise.all(
      dimensions.map((dimension) =>
        judgeDimension({
          judge: judge!,
          set: sets[dimension]!,
          threshold: config[THRESHOLD_KEY[dimension]],
          agent,
          action: text,
          history,
          window,
          timeoutMs,
        }),
      ),
    );
    for (const d of judged) {
      usage.total = addUsage(usage.total, d.usage);
      usage.calls += d.calls;
    }
    const similarity = config.gate_similarity_enabled ? actionSimilarity(text, recent) : null;
    // Too similar at the maximum or above, as TinyTroupe and the shared statistics count it.
    const similarityPassed = similarity === null || similarity < config.max_action_similarity;
    return {
      number,
      text,
      dimensions: judged,
      similarity,
      similarityPassed,
      passed: similarityPassed && judged.every((d) => d.passed),
      total: judged.reduce((sum, d) => sum + (d.score ?? d.threshold), 0),
      failOpen: judged.some((d) => d.timed_out === true || d.errored === true),
    };
  }

  async function check({
    agent,
    tentativeText,
    history = [],
    regenerate,
  }: GateCheckInput): Promise<GateCheckResult> {
    if (!enabled) {
      const only: GateAttempt = {
        number: 1,
        text: tentativeText,
        dimensions: [],
        similarity: null,
        similarityPassed: true,
        passed: true,
        total: 0,
        failOpen: false,
      };
      return { text: tentativeText, outcome: "passed", committed: only, attempts: [only], entry: null };
    }
    const recent = history
      .filter((h) => h.from === undefined)
      .slice(-RECENT_MESSAGES)
      .map((h) => h.text);
    const usage = { total: { ...ZERO_USAGE }, calls: 0 };
    const attempts: GateAttempt[] = [];
    let text = tentativeText;
    for (let number = 1; ; number++) {
      const attempt = await judgeAttempt(number, text, agent, history, recent, usage);
      attempts.push(attempt);
      if (attempt.passed || number >= maxAttempts || !regenerate) break;
      const feedback = gateFeedback([...attempts], {
        maxAttempts,
        maxSimilarity: config.max_action_similarity,
      });
      text = await regenerate(feedback, number + 1);
    }

    const last = attempts[attempts.length - 1]!;
    const committed = last.passed ? last : bestAttempt(attempts);
    // A rejected message is logged like any check (its scores are the best attempt's), but commits nothing.
    const rejected = !last.passed && !config.continue_on_failure;
    const outcome = rejected ? "rejected" : outcomeOf(committed, tentativeText, last.passed);
    const entry: GateLogEntry = {
      agent_id: agent.id,
      run_id: options.runId ?? null,
      original_text: tentativeText,
      corrected_text: rejected || committed.text === tentativeText ? null : committed.text,
      dimension_scores: dimensionScores(committed.dimensions),
      similarity_score: committed.similarity,
      total_score: committed.total,
      attempt_number: committed.number,
      outcome,
      token_usage: usage.total,
      judge_calls: usage.calls,
      attempts: attempts.map(summary),
    };
    if (options.log) await options.log(entry);
    if (rejected) throw new ActionRejectedError(attempts, entry);
    return { text: committed.text, outcome, committed, attempts, entry };
  }

  return { config, dimensions, enabled, check };
}

/**
 * The attempt to commit when none passed: the highest sum of dimension scores among attempts that passed
 * the similarity check (among all when none did). Similarity is never added to the sum: TinyTroupe's total
 * adds similarity × 9, which favours the more repetitive of two failing attempts. Ties keep the earlier.
 */
export function bestAttempt(attempts: readonly GateAttempt[]): GateAttempt {
  const pool = attempts.some((a) => a.similarityPassed)
    ? attempts.filter((a) => a.similarityPassed)
    : attempts;
  let best = pool[0]!;
  for (const a of pool) if (a.total > best.total) best = a;
  return best;
}

/**
 * `passed`: the original passed every check. `timeout_pass_through`: the committed attempt passed, but a
 * dimension passed only because its judge did not answer (timeout or error). `corrected`: a regenerated,
 * different text passed. `passed_after_retry`: a retry passed with the original text unchanged (the
 * regeneration gave the same words, and a second judgement passed them). `forced_through`: no attempt
 * passed; the best one is committed (continue_on_failure). (`rejected`, when continue_on_failure is off, is
 * decided by the caller: nothing is committed.)
 */
function outcomeOf(committed: GateAttempt, original: string, passed: boolean): CorrectionOutcome {
  if (!passed) return "forced_through";
  if (committed.failOpen) return "timeout_pass_through";
  if (committed.number === 1) return "passed";
  return committed.text === original ? "passed_after_retry" : "corrected";
}

function dimensionScores(
  judged: readonly DimensionJudgement[],
): Partial<Record<GateDimension, GateDimensionScore>> {
  const scores: Partial<Record<GateDimension, GateDimensionScore>> = {};
  for (const d of judged) {
    const score: GateDimensionScore = { score: d.score, reasoning: d.reasoning, passed: d.passed };
    if (d.timed_out) score.timed_out = true;
    if (d.errored) score.errored = true;
    scores[d.dimension] = score;
  }
  return scores;
}

function summary(a: GateAttempt): GateAttemptSummary {
  return {
    attempt_number: a.number,
    dimension_scores: dimensionScores(a.dimensions),
    similarity_score: a.similarity,
    similarity_passed: a.similarityPassed,
    passed: a.passed,
    total_score: a.total,
  };
}
