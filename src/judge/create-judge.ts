// The judge a spec names, for library callers and the CLI alike: a fixture replay for `fixtures:FILE`,
// otherwise an LLM judge on the provider's model.
import type { LanguageModel } from "ai";
import { type JudgeSpec, parseJudgeSpec } from "../core/index.ts";
import { FixtureJudge, loadFixtures } from "./fixtures.ts";
import { LlmJudge, type LlmJudgeOptions } from "./llm-judge.ts";
import { createJudgeModel, type JudgeModelOptions } from "./provider.ts";
import { processRateLimits, type RateLimit, type RateLimitBackend, rateLimitKey } from "./rate-limit.ts";
import type { Judge } from "./types.ts";

export interface CreateJudgeOptions extends JudgeModelOptions {
  /** Sampling temperature of a live judge. Default: the provider's. */
  temperature?: number;
  /**
   * Most model calls in flight at once. Default 16 (DEFAULT_CONCURRENCY) for a judge made here on its own.
   * A judge that an evaluation builds (evaluatePersonas, analyzeSession…) takes the run's `concurrency`
   * instead; given there in `judgeSettings`, this is a limit of the judge's own, below the run's.
   */
  concurrency?: number;
  /** Retries per conversation after the first call. Default 4. */
  retries?: number;
  /** Time limit of one model call in ms. Default 60000. */
  timeoutMs?: number;
  /**
   * The provider's limit on the judge's key (requests and tokens per minute), held across every judge that
   * shares the key and `rateLimits`: each call waits for its time. Default: no limit.
   */
  rateLimit?: RateLimit;
  /**
   * Where the limit is kept. Default this process's memory; `dramaturg worker`s and runs on a PostgreSQL
   * store keep it in the database, shared by every process (rate-limit/: SharedRateLimits).
   */
  rateLimits?: RateLimitBackend;
}

/**
 * The judge of a spec (`openai:gpt-5-mini`, `fixtures:judge.yaml`, or a parsed {@link JudgeSpec}).
 * A fixtures file is read and validated now; a live model needs its API key in `env` now, too.
 * Bad specs, unreadable fixtures and missing keys throw an InputError.
 */
export function createJudge(
  spec: string | JudgeSpec,
  { temperature, concurrency, retries, timeoutMs, rateLimit, rateLimits, ...model }: CreateJudgeOptions = {},
): Judge {
  const parsed = typeof spec === "string" ? parseJudgeSpec(spec) : spec;
  if (parsed.kind === "fixtures")
    return new FixtureJudge({ fixtures: loadFixtures(parsed.file), file: parsed.file });
  const built = createJudgeModel(parsed, model);
  return judgeOnModel(
    built.model,
    { temperature, concurrency, retries, timeoutMs, rateLimit, rateLimits },
    built,
  );
}

/**
 * The LLM judge on an AI SDK model the caller built, with the call limits of `options`; `known` gives
 * the descriptor, redactor and rate-limit key when the model came from a spec (otherwise the model describes
 * itself, and its rate limit is kept under its provider and id).
 */
export function judgeOnModel(
  model: LanguageModel,
  { temperature, concurrency, retries, timeoutMs, rateLimit, rateLimits }: CreateJudgeOptions = {},
  {
    rateLimitKey: key,
    ...known
  }: Pick<LlmJudgeOptions, "descriptor" | "redact"> & { rateLimitKey?: string } = {},
): LlmJudge {
  const rateLimiter = rateLimit
    ? (rateLimits ?? processRateLimits).limiter(
        key ??
          (typeof model === "string"
            ? rateLimitKey("gateway", model)
            : rateLimitKey(model.provider, model.modelId)),
        rateLimit,
      )
    : undefined;
  return new LlmJudge({
    model,
    ...known,
    temperature,
    concurrency,
    maxRetries: retries,
    timeoutMs,
    rateLimiter,
  });
}

/**
 * Whether a judge calls a model (costs calls and tokens, and is worth caching) rather than replaying
 * fixtures. Wrappers that keep the inner judge's descriptor (the verdict cache) answer for it.
 */
export function isLiveJudge(judge: Judge): boolean {
  return judge.descriptor.provider !== "fixtures";
}
