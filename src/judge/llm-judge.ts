// The LLM judge on the AI SDK: structured answers, a concurrency limit shared by every call of one judge,
// retries with backoff (Retry-After honoured), per-call timeouts, double-check turns and token accounting.

import type * as ProviderSdk from "@ai-sdk/provider";
import type { LanguageModelV4, LanguageModelV4Prompt, LanguageModelV4Usage } from "@ai-sdk/provider";
import type * as AiSdk from "ai";
import type { JSONSchema7, LanguageModel, LanguageModelUsage, ModelMessage, SystemModelMessage } from "ai";
import type { z } from "zod";
import type { TokenUsage, Verdict, VerdictKey } from "../core/index.ts";
import {
  addUsage,
  DEFAULT_CONCURRENCY,
  JudgeError,
  type JudgeErrorKind,
  redactSecrets,
  ZERO_USAGE,
} from "../core/index.ts";
import { isGatedAtTransport, whenAnswered, whenSending } from "./answered.ts";
import type {
  CheckAnswer,
  ClaimAnswer,
  CountAnswer,
  JudgeAnswer,
  JudgeConversation,
  PromptItem,
  ScoreAnswer,
} from "./prompt.ts";
import {
  ANSWER_NAMES,
  assignItemIds,
  buildConversation,
  checkedAnswerSchema,
  DOUBLE_CHECK_MESSAGE,
  doubleCheckMessages,
  PROMPT_VERSION,
  planConversations,
  requestedJsonSchema,
} from "./prompt.ts";
import { estimateTokens, type JudgeRateLimiter, type RateLimitPermit, sleepAbortably } from "./rate-limit.ts";
import { Semaphore } from "./semaphore.ts";
import type {
  Judge,
  JudgeCallOptions,
  JudgeDescriptor,
  JudgeRequest,
  JudgeResponse,
  VerdictKind,
} from "./types.ts";

/** The AI SDK, loaded by the first model call: importing dramaturg, or building a judge, does not load it. */
let aiSdk: typeof AiSdk | undefined;
async function loadAiSdk(): Promise<typeof AiSdk> {
  aiSdk ??= await import("ai");
  return aiSdk;
}

/** The provider specification's errors (what a provider's call throws), loaded with the first call. */
let providerSdk: typeof ProviderSdk | undefined;
async function loadProviderSdk(): Promise<typeof ProviderSdk> {
  providerSdk ??= await import("@ai-sdk/provider");
  return providerSdk;
}

/**
 * HTTP statuses that mean the judge cannot work at all (bad credentials, no access, no such model or
 * endpoint). They are thrown from `judge()` instead of being recorded per item, so the engine can stop
 * the run with exit code 3 rather than record every verdict as errored.
 */
export const FATAL_STATUSES: ReadonlySet<number> = new Set([401, 403, 404]);

/**
 * True for a judge failure that should stop the run: a status of {@link FATAL_STATUSES}, or a server that
 * could not be reached at all (the reachability probe's `network` failure, which is not retryable).
 */
export function isFatalJudgeError(error: unknown): error is JudgeError {
  return (
    JudgeError.isInstance(error) &&
    !error.retryable &&
    ((error.status !== undefined && FATAL_STATUSES.has(error.status)) || error.kind === "network")
  );
}

export interface LlmJudgeOptions {
  /** The model that judges: any AI SDK language model (`createOpenAI(…).chat(id)`, a mock…). */
  model: LanguageModel;
  /**
   * Who the model is, for the run record. Defaults to the model's own provider and id. Never put
   * credentials here: it is stored with every run.
   */
  descriptor?: { provider: string; model: string; base_url?: string };
  /** Sampling temperature sent with every call. Default: not sent (the provider's default applies). */
  temperature?: number;
  /**
   * Most model calls in flight at once, across every request made through this judge. Default 16
   * (DEFAULT_CONCURRENCY, the same as a run's). A call's
   * slot is freed when its answer has arrived, before the answer is parsed, if the transport says when
   * (the providers `createJudgeModel` builds do); otherwise when the call returns.
   */
  concurrency?: number;
  /**
   * Retries per conversation after the first call, shared by transport failures (429, 5xx, timeouts,
   * network), malformed or out-of-range answers, and follow-ups for claims an answer left out. Default 4.
   */
  maxRetries?: number;
  /** Time limit of one model call in ms, counted from when it gets a concurrency slot. Default 60000. */
  timeoutMs?: number;
  /** Exponential backoff between transport retries: first delay and cap, in ms. Defaults 500 and 30000. */
  backoff?: { initialMs?: number; maxMs?: number };
  /** Waits between retries; injectable so tests need not wait. Must reject when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Source of jitter in [0, 1). Default Math.random. */
  random?: () => number;
  /** Removes secrets from provider error text (`createJudgeModel` supplies one that knows the key). */
  redact?: (text: string) => string;
  /**
   * The rate limit of the model's key (rate-limit.ts): every call acquires a request and an estimate of its
   * tokens before it is sent (once it has its concurrency slot, so its time at the limiter is when it goes)
   * and settles the estimate with its real usage; a 429 with Retry-After pauses it for everyone sharing it.
   * A limiter that fails (its database unreachable) fails the judgement instead of erroring its verdicts.
   */
  rateLimiter?: JudgeRateLimiter;
}

/** What `ask()` returns: the validated answer, and what it cost. */
export interface AskResult<T> {
  output: T;
  usage: TokenUsage;
  calls: number;
}

export interface AskOptions<T> {
  /** System prompt. */
  system: string;
  /** The conversation so far; untrusted text in it should already be delimited and escaped. */
  messages: ModelMessage[];
  /** Schema of the answer; enforced through the provider and validated (a mismatch is retried). */
  schema: z.ZodType<T>;
  /** Name of the structured output, for providers that label schemas. Default `answer`. */
  name?: string;
  signal?: AbortSignal;
}

/** The exact prompts a request produces, for hashing into a cache key. */
export interface PromptFingerprint {
  prompt_version: string;
  /** The follow-up turn, when the request asks for a double check. */
  double_check?: string;
  conversations: Array<{ kind: VerdictKind; ids: string[]; system: string; messages: ModelMessage[] }>;
}

/** The system prompts and messages `LlmJudge.judge(request)` would send first, one entry per model conversation. */
export function promptFingerprint(request: JudgeRequest): PromptFingerprint {
  return {
    prompt_version: PROMPT_VERSION,
    ...(request.doubleCheck ? { double_check: DOUBLE_CHECK_MESSAGE } : {}),
    conversations: planConversations(request).map((c) => ({
      kind: c.kind,
      ids: c.items.map((i) => i.id),
      system: c.system,
      messages: c.messages,
    })),
  };
}

interface Tally {
  usage: TokenUsage;
  calls: number;
  /** The caller's {@link JudgeCallOptions.onCall}. */
  onCall?: () => void;
}

interface RetryBudget {
  remaining: number;
  /** Retries taken so far, for the backoff exponent. */
  taken: number;
}

/** A failed call, classified: the error to record or throw, and whether to wait before retrying. */
interface Failure {
  error: JudgeError;
  backoff: boolean;
}

/** Raised inside the retry loop for answers that parse but cannot be used; always retryable. */
class UnusableAnswer extends Error {}

/** A rate limiter that failed; its cause is thrown from the judgement as it is, never recorded per item. */
class LimiterFailure extends Error {
  constructor(readonly failure: unknown) {
    super("the judge's rate limiter failed");
  }
}

export class LlmJudge implements Judge {
  readonly descriptor: JudgeDescriptor;
  private readonly model: LanguageModel;
  /**
   * The model itself when it is an AI SDK provider model of the current specification: the judge's
   * conversations then call it directly (`doGenerate`), without `generateText`, whose step, telemetry
   * and output machinery a one-turn structured answer does not use and which cost as much CPU per call
   * as the rest of the judge. Anything else (a gateway id, an older specification) goes through
   * `generateText`, as `ask()` always does.
   */
  private readonly direct?: LanguageModelV4;
  private readonly temperature?: number;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly redact: (text: string) => string;
  private readonly slots: Semaphore;
  /** Whether the transport takes each call's slot once its request is built (answered.ts). */
  private readonly gatedAtTransport: boolean;
  /** See {@link Judge.inFlightLimit}: this judge's `concurrency`. */
  readonly inFlightLimit: number;
  private readonly total: Tally = { usage: { ...ZERO_USAGE }, calls: 0 };
  private readonly rateLimiter?: JudgeRateLimiter;

  constructor({
    model,
    descriptor,
    temperature,
    concurrency = DEFAULT_CONCURRENCY,
    maxRetries = 4,
    timeoutMs = 60_000,
    backoff = {},
    sleep = sleepAbortably,
    random = Math.random,
    redact,
    rateLimiter,
  }: LlmJudgeOptions) {
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new RangeError("concurrency must be an integer ≥ 1");
    if (!Number.isInteger(maxRetries) || maxRetries < 0)
      throw new RangeError("maxRetries must be an integer ≥ 0");
    if (!(timeoutMs > 0)) throw new RangeError("timeoutMs must be > 0");
    this.model = model;
    if (typeof model === "object" && model.specificationVersion === "v4") this.direct = model;
    this.temperature = temperature;
    this.maxRetries = maxRetries;
    this.timeoutMs = timeoutMs;
    this.initialDelayMs = backoff.initialMs ?? 500;
    this.maxDelayMs = backoff.maxMs ?? 30_000;
    this.sleep = sleep;
    this.random = random;
    this.redact = (text) => redactSecrets(redact ? redact(text) : text);
    this.slots = new Semaphore(concurrency);
    this.gatedAtTransport = isGatedAtTransport(model);
    this.inFlightLimit = concurrency;
    this.rateLimiter = rateLimiter;
    const who = descriptor ?? describeModel(model);
    this.descriptor = {
      provider: who.provider,
      model: who.model,
      ...(who.base_url !== undefined ? { base_url: who.base_url } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      prompt_version: PROMPT_VERSION,
    };
  }

  /** Calls and tokens used by this judge since it was created, failed calls included. */
  get totals(): { calls: number; usage: TokenUsage } {
    return { calls: this.total.calls, usage: { ...this.total.usage } };
  }

  /**
   * Judges every item of the request. Each item gets a verdict or an errored verdict, never a default.
   * Throws the caller's abort reason when `signal` aborts, and a {@link JudgeError} for fatal failures
   * ({@link isFatalJudgeError}: bad key, no access, no such model).
   */
  async judge(request: JudgeRequest, options: JudgeCallOptions = {}): Promise<JudgeResponse> {
    const tally: Tally = { usage: { ...ZERO_USAGE }, calls: 0, onCall: options.onCall };
    const conversations = planConversations(request);
    // A fatal failure in one conversation cancels its siblings instead of letting them run on; a request of
    // one conversation (the usual) has none, and follows the caller's signal alone.
    const stop = conversations.length > 1 ? new AbortController() : undefined;
    const unlink = stop ? followAbort(options.signal, stop) : () => {};
    const signal = stop ? stop.signal : options.signal;
    const byId = new Map<string, Verdict>();
    try {
      await Promise.all(
        conversations.map(async (conversation) => {
          const verdicts = await this.runConversation(conversation, request, signal, tally);
          for (const [id, verdict] of verdicts) byId.set(id, verdict);
        }),
      );
    } catch (error) {
      stop?.abort(error);
      options.signal?.throwIfAborted();
      throw error;
    } finally {
      unlink();
    }
    // Conversations group items by kind; the response lists verdicts in request order again.
    const ids = assignItemIds(request.items);
    const verdicts = request.items.map(
      (item, i) =>
        byId.get(ids[i]!) ??
        errored(item.key, new JudgeError("no verdict", { kind: "unknown", retryable: false })),
    );
    return { verdicts, usage: tally.usage, calls: tally.calls };
  }

  /**
   * Any structured judgement through the same concurrency slots, retries, timeouts and accounting as
   * `judge()`. Throws a {@link JudgeError} when no valid answer came within the retries.
   */
  async ask<T>({ system, messages, schema, name = "answer", signal }: AskOptions<T>): Promise<AskResult<T>> {
    const tally: Tally = { usage: { ...ZERO_USAGE }, calls: 0 };
    const budget: RetryBudget = { remaining: this.maxRetries, taken: 0 };
    const output = await this.withRetries(
      () => this.call(system, messages, (ai) => outputSpec(ai, schema, name), signal, tally),
      budget,
      signal,
    );
    return { output, usage: tally.usage, calls: tally.calls };
  }

  /** One conversation to completion: answered items, follow-ups for left-out ones, errors for the rest. */
  private async runConversation(
    conversation: JudgeConversation,
    request: JudgeRequest,
    signal: AbortSignal | undefined,
    tally: Tally,
  ): Promise<Map<string, Verdict>> {
    const results = new Map<string, Verdict>();
    const budget: RetryBudget = { remaining: this.maxRetries, taken: 0 };
    let pending: PromptItem[] = conversation.items;
    let current = conversation;
    for (;;) {
      let answered: Map<string, Verdict>;
      try {
        answered = await this.answer(current, request.doubleCheck, signal, tally, budget);
      } catch (error) {
        if (!JudgeError.isInstance(error) || isFatalJudgeError(error)) throw error;
        for (const { id, item } of pending) results.set(id, errored(item.key, error));
        return results;
      }
      for (const [id, verdict] of answered) results.set(id, verdict);
      const missing = pending.filter(({ id }) => !answered.has(id));
      if (missing.length === 0) return results;
      if (budget.remaining <= 0) {
        const error = new JudgeError("the judge's answer left out this claim, and no retries remained", {
          kind: "malformed",
          retryable: true,
        });
        for (const { id, item } of missing) results.set(id, errored(item.key, error));
        return results;
      }
      // Ask again about the left-out claims only; what was answered stands.
      budget.remaining--;
      budget.taken++;
      pending = missing;
      current = buildConversation(conversation.kind, pending, request.context);
    }
  }

  /** First answer, then (if asked) the double-check turn, whose answer replaces the first. */
  private async answer(
    conversation: JudgeConversation,
    doubleCheck: boolean,
    signal: AbortSignal | undefined,
    tally: Tally,
    budget: RetryBudget,
  ): Promise<Map<string, Verdict>> {
    const { kind, system, messages, items } = conversation;
    const output = (ai: typeof AiSdk) => answerOutput(ai, kind, items.length);
    const ask = (turn: ModelMessage[]) =>
      this.withRetries(
        async () => {
          const answer = this.direct
            ? await this.callDirect(this.direct, system, turn, kind, items.length, signal, tally)
            : await this.call(system, turn, output, signal, tally, items.length);
          return { output: answer, verdicts: readAnswer(kind, items, answer) };
        },
        budget,
        signal,
      );
    const first = await ask(messages);
    if (!doubleCheck) return first.verdicts;
    const revised = await ask(doubleCheckMessages(messages, first.output));
    return revised.verdicts;
  }

  /** Runs `attempt` until it succeeds, a failure is not retryable, or the budget is spent. */
  private async withRetries<T>(
    attempt: () => Promise<T>,
    budget: RetryBudget,
    signal?: AbortSignal,
  ): Promise<T> {
    for (;;) {
      try {
        return await attempt();
      } catch (error) {
        signal?.throwIfAborted();
        if (error instanceof LimiterFailure) throw error.failure;
        const failure = this.classify(error);
        const { kind, retryAfterMs } = failure.error;
        // The provider's Retry-After holds for every caller of the key, not only for this conversation.
        if (this.rateLimiter && kind === "rate-limit" && retryAfterMs !== undefined)
          await this.rateLimiter.pause(retryAfterMs);
        if (!failure.error.retryable || budget.remaining <= 0) throw failure.error;
        budget.remaining--;
        budget.taken++;
        if (failure.backoff)
          await this.sleep(this.retryDelay(budget.taken, failure.error.retryAfterMs), signal);
      }
    }
  }

  /** Exponential backoff with jitter, and never sooner than the provider asked. */
  private retryDelay(retry: number, retryAfterMs?: number): number {
    const ceiling = Math.min(this.maxDelayMs, this.initialDelayMs * 2 ** (retry - 1));
    const jittered = ceiling / 2 + (this.random() * ceiling) / 2;
    return Math.max(retryAfterMs ?? 0, Math.round(jittered));
  }

  /**
   * One model call: runs `send` under the per-call timeout with the signal it must pass on, in one of the
   * judge's slots. The slot is taken before `send`, or, when `gated` (a model whose requests go through
   * nodeFetch with that signal), by the transport once `send` has built the request (answered.ts): a call then
   * waits for its slot with its request ready, and a freed slot sends it at once. With a rate limiter, the
   * call then waits for its time at the limiter, `promptCharacters` and `claims` estimating its tokens.
   * Counts the call once it has its slot, when it is sent; `send` charges its tokens.
   */
  private async inSlot<T>(
    signal: AbortSignal | undefined,
    tally: Tally,
    send: (abortSignal: AbortSignal, charge: (usage: TokenUsage) => void) => Promise<T>,
    {
      gated = false,
      promptCharacters,
      claims,
    }: { gated?: boolean; promptCharacters: () => number; claims: number },
  ): Promise<T> {
    const call = new AbortController();
    let release: (() => void) | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timedOut = false;
    let permit: RateLimitPermit | undefined;
    let limiterFailed: LimiterFailure | undefined;
    let usedTokens: number | undefined;
    const charge = (usage: TokenUsage) => {
      this.count(tally, 0, usage);
      usedTokens = (usedTokens ?? 0) + usage.input_tokens + usage.output_tokens;
    };
    const take = async () => {
      release = await this.slots.acquire(signal);
      if (this.rateLimiter)
        try {
          permit = await this.rateLimiter.acquire(estimateTokens(promptCharacters(), claims), signal);
        } catch (error) {
          release();
          if (!signal?.aborted) limiterFailed = new LimiterFailure(error);
          throw limiterFailed ?? error;
        }
      // Counted as it goes out: a call abandoned while it waited for its slot was never sent.
      this.count(tally, 1, ZERO_USAGE);
      tally.onCall?.();
      // The timer starts with the call's slot, not while queueing for one.
      timer = setTimeout(() => {
        timedOut = true;
        call.abort(new DOMException(`no answer within ${this.timeoutMs} ms`, "TimeoutError"));
      }, this.timeoutMs);
      // The slot goes to the next call as soon as the transport has this call's answer (see answered.ts).
      whenAnswered(call.signal, release);
    };
    if (gated) whenSending(call.signal, take);
    else await take();
    const unlink = followAbort(signal, call);
    try {
      return await send(call.signal, charge);
    } catch (error) {
      signal?.throwIfAborted();
      // The transport may have wrapped what the limiter threw while the request waited for it.
      if (limiterFailed) throw limiterFailed;
      if (timedOut)
        throw new JudgeError(`the judge did not answer within ${this.timeoutMs} ms`, {
          kind: "timeout",
          retryable: true,
        });
      throw error;
    } finally {
      clearTimeout(timer);
      unlink();
      release?.();
      // A call that reported no usage (it failed on the way) keeps its estimate charged.
      if (usedTokens !== undefined) permit?.settle(usedTokens);
    }
  }

  /** One model call through `generateText` with structured output. */
  private call<T>(
    system: string,
    messages: ModelMessage[],
    /** The output spec, built once the AI SDK is loaded (it is loaded with the first call). */
    output: (ai: typeof AiSdk) => AnswerOutput<T>,
    signal: AbortSignal | undefined,
    tally: Tally,
    /** Claims the answer covers, for the token estimate of a rate limit. */
    claims = 1,
  ): Promise<T> {
    return this.inSlot(
      signal,
      tally,
      async (abortSignal, charge) => {
        const ai = await loadAiSdk();
        try {
          const result = await ai.generateText({
            model: this.model,
            instructions: systemMessage(system),
            messages,
            output: output(ai),
            temperature: this.temperature,
            maxRetries: 0,
            abortSignal,
          });
          charge(toUsage(result.usage));
          return result.output as T;
        } catch (error) {
          if (ai.NoObjectGeneratedError.isInstance(error) && error.usage) charge(toUsage(error.usage));
          throw error;
        }
      },
      { promptCharacters: () => promptLength(system, messages), claims },
    );
  }

  /**
   * One model call straight to the provider's model: the prompt in the provider specification's form, the
   * answer schema as its JSON response format, and the text answer parsed and checked here, as
   * `generateText` would (an answer that is not JSON, or not valid, is unusable and retried).
   */
  private callDirect(
    model: LanguageModelV4,
    system: string,
    messages: ModelMessage[],
    kind: VerdictKind,
    claims: number,
    signal: AbortSignal | undefined,
    tally: Tally,
  ): Promise<JudgeAnswer> {
    return this.inSlot(
      signal,
      tally,
      async (abortSignal, charge) => {
        await loadProviderSdk();
        const result = await model.doGenerate({
          prompt: providerPrompt(system, messages),
          responseFormat: {
            type: "json",
            schema: requestedJsonSchema(kind, claims) as JSONSchema7,
            name: ANSWER_NAMES[kind],
          },
          ...(this.temperature !== undefined ? { temperature: this.temperature } : {}),
          abortSignal,
        });
        charge(usageOf(result.usage));
        const text = result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          throw new UnusableAnswer(`the judge's answer was malformed (not JSON): ${truncate(text, 200)}`);
        }
        const parsed = checkedAnswerSchema(kind, claims).safeParse(value);
        if (!parsed.success)
          throw new UnusableAnswer(
            `the judge's answer was malformed or out of range: ${truncate(text, 200)} (${truncate(
              parsed.error.issues.map((i) => `${i.path.join(".") || "answer"}: ${i.message}`).join("; "),
              200,
            )})`,
          );
        return parsed.data;
      },
      {
        // The provider passes this signal to its fetch, nodeFetch, as it is (generateText, in `call`, may not).
        gated: this.gatedAtTransport,
        promptCharacters: () => promptLength(system, messages),
        claims,
      },
    );
  }

  private count(tally: Tally, calls: number, usage: TokenUsage): void {
    tally.calls += calls;
    tally.usage = addUsage(tally.usage, usage);
    this.total.calls += calls;
    this.total.usage = addUsage(this.total.usage, usage);
  }

  /** Turns anything a call threw into a JudgeError, with secrets removed from provider text. */
  private classify(error: unknown): Failure {
    if (JudgeError.isInstance(error)) return { error, backoff: true };
    if (error instanceof UnusableAnswer)
      return {
        error: new JudgeError(this.redact(error.message), { kind: "malformed", retryable: true }),
        backoff: false,
      };
    // Until the AI SDK is loaded, nothing can have thrown one of its errors.
    const ai = aiSdk;
    if (ai && (ai.NoObjectGeneratedError.isInstance(error) || ai.NoOutputGeneratedError.isInstance(error))) {
      const detail = error.cause instanceof Error ? `: ${truncate(error.cause.message, 300)}` : "";
      return {
        error: new JudgeError(this.redact(`the judge's answer was malformed or out of range${detail}`), {
          kind: "malformed",
          retryable: true,
        }),
        backoff: false,
      };
    }
    if (ai?.APICallError.isInstance(error) || providerSdk?.APICallError.isInstance(error)) {
      const status = error.statusCode;
      const fatal = status !== undefined && FATAL_STATUSES.has(status);
      const retryable = !fatal && error.isRetryable;
      const what =
        status === 401 || status === 403
          ? "the judge provider rejected the credentials"
          : status === 404
            ? "the judge provider has no such model or endpoint"
            : "the judge provider call failed";
      // The cause is left out on purpose: provider errors carry response bodies that may quote the key.
      return {
        error: new JudgeError(
          this.redact(`${what}${status ? ` (HTTP ${status})` : ""}: ${truncate(error.message, 500)}`),
          {
            kind: kindOfStatus(status),
            retryable,
            status,
            retryAfterMs: retryable ? retryAfterMs(error.responseHeaders) : undefined,
          },
        ),
        backoff: true,
      };
    }
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return {
      error: new JudgeError(this.redact(`the judge call failed: ${truncate(message, 500)}`), {
        kind: "unknown",
        retryable: false,
      }),
      backoff: false,
    };
  }
}

/** The kind of a provider's HTTP failure; no status means the provider was never reached. */
function kindOfStatus(status: number | undefined): JudgeErrorKind {
  if (status === undefined) return "network";
  if (status === 401 || status === 403) return "auth";
  if (status === 404) return "model-not-found";
  if (status === 408) return "timeout";
  if (status === 429) return "rate-limit";
  if (status >= 500) return "server";
  return "bad-request";
}

/** Verdicts from a validated answer, by prompt id. Unknown or repeated ids make the whole answer unusable. */
function readAnswer(
  kind: VerdictKind,
  items: readonly PromptItem[],
  output: JudgeAnswer,
): Map<string, Verdict> {
  const verdicts = new Map<string, Verdict>();
  if (kind === "count") {
    const answer = output as CountAnswer;
    const { id, item } = items[0]!;
    verdicts.set(id, {
      ok: true,
      key: item.key,
      count: answer.count,
      ideas: answer.ideas,
      reasoning: answer.reasoning,
    });
    return verdicts;
  }
  const byId = new Map(items.map((p) => [p.id, p.item] as const));
  // A conversation about one claim is answered with that claim's verdict alone.
  const answered =
    "verdicts" in output
      ? (output as ScoreAnswer | CheckAnswer).verdicts
      : [{ ...(output as ClaimAnswer), id: items[0]!.id }];
  for (const v of answered) {
    const item = byId.get(v.id);
    if (!item)
      throw new UnusableAnswer(`the judge answered a claim id it was not given ("${truncate(v.id, 80)}")`);
    if (verdicts.has(v.id)) throw new UnusableAnswer(`the judge answered claim "${v.id}" more than once`);
    const { reasoning } = v;
    verdicts.set(
      v.id,
      kind === "score"
        ? { ok: true, key: item.key, score: v.value as number, reasoning }
        : { ok: true, key: item.key, value: v.value as boolean, reasoning },
    );
  }
  return verdicts;
}

type AnswerOutput<T> = ReturnType<typeof AiSdk.Output.object<T>>;

// Converting a zod schema to JSON Schema costs more than the rest of a call's local work, and the
// output spec is stateless, so one per schema and name is built and reused.
const outputSpecs = new WeakMap<object, Map<string, unknown>>();

function outputSpec<T>(ai: typeof AiSdk, schema: z.ZodType<T>, name: string): AnswerOutput<T> {
  let byName = outputSpecs.get(schema);
  if (!byName) outputSpecs.set(schema, (byName = new Map()));
  let spec = byName.get(name) as AnswerOutput<T> | undefined;
  if (!spec) byName.set(name, (spec = ai.Output.object({ schema, name })));
  return spec;
}

// One output spec per kind and number of claims (at most MAX_BATCH_SIZE), built once: the ids are in the
// prompt, not in the schema, so conversations of one size share it.
const answerOutputs = new Map<string, AnswerOutput<JudgeAnswer>>();

/**
 * The output spec of one conversation: the provider receives {@link requestedJsonSchema} (one verdict per
 * claim), while the answer is validated against the looser {@link answerSchema}, so that where the schema
 * is not enforced a partial answer keeps its verdicts (the left-out claims are asked again) and an unknown
 * id gets an error that names it and a retry.
 */
function answerOutput(ai: typeof AiSdk, kind: VerdictKind, claims: number): AnswerOutput<JudgeAnswer> {
  const key = `${kind}:${claims}`;
  let spec = answerOutputs.get(key);
  if (spec) return spec;
  const sent = requestedJsonSchema(kind, claims);
  const checked = checkedAnswerSchema(kind, claims);
  const schema = ai.jsonSchema<JudgeAnswer>(sent as JSONSchema7, {
    validate: (value) => {
      const parsed = checked.safeParse(value);
      return parsed.success ? { success: true, value: parsed.data } : { success: false, error: parsed.error };
    },
  });
  spec = ai.Output.object({ schema, name: ANSWER_NAMES[kind] });
  answerOutputs.set(key, spec);
  return spec;
}

function errored(key: VerdictKey, error: JudgeError): Verdict {
  return { ok: false, key, error: { name: error.name, message: error.message } };
}

function toUsage(usage: LanguageModelUsage | undefined): TokenUsage {
  return tokenUsage(usage?.inputTokens, usage?.outputTokens, usage?.inputTokenDetails?.cacheReadTokens);
}

function tokenUsage(input?: number, output?: number, cached?: number): TokenUsage {
  // Kept only when the provider read some from its cache, so usage without caching stays as it was.
  return {
    input_tokens: input ?? 0,
    output_tokens: output ?? 0,
    ...(cached ? { cached_input_tokens: cached } : {}),
  };
}

/** The conversation in the provider specification's prompt form (what `generateText` hands a model). */
function providerPrompt(system: string, messages: readonly ModelMessage[]): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [
    { role: "system", content: system, providerOptions: ANTHROPIC_CACHE_BREAKPOINT },
  ];
  for (const message of messages) {
    if (typeof message.content !== "string" || (message.role !== "user" && message.role !== "assistant"))
      throw new TypeError("a judge conversation is made of text turns of the user and the assistant");
    prompt.push({ role: message.role, content: [{ type: "text", text: message.content }] });
  }
  return prompt;
}

/** Token usage as a provider reports it (the specification's form), with cached input when there is any. */
function usageOf(usage: LanguageModelV4Usage): TokenUsage {
  return tokenUsage(usage.inputTokens.total, usage.outputTokens.total, usage.inputTokens.cacheRead);
}

const ANTHROPIC_CACHE_BREAKPOINT = { anthropic: { cacheControl: { type: "ephemeral" } } };

/**
 * The system prompt as a message marked as a prompt-cache breakpoint for Anthropic, whose prompt caching
 * is opt-in (OpenAI caches long prompt prefixes by itself; other providers ignore the option).
 */
function systemMessage(system: string): SystemModelMessage {
  return {
    role: "system",
    content: system,
    providerOptions: ANTHROPIC_CACHE_BREAKPOINT,
  };
}

function describeModel(model: LanguageModel): { provider: string; model: string; base_url?: string } {
  if (typeof model === "string") return { provider: "gateway", model };
  return { provider: model.provider, model: model.modelId };
}

/** Milliseconds a response asked us to wait: `retry-after-ms`, else `retry-after` in seconds or as a date. */
export function retryAfterMs(
  headers: Record<string, string> | undefined,
  now = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const ms = Number.parseFloat(headers["retry-after-ms"] ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers["retry-after"];
  if (!value) return undefined;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Characters of a conversation's prompt, for estimating its tokens before the call. */
function promptLength(system: string, messages: readonly ModelMessage[]): number {
  let length = system.length;
  for (const message of messages)
    if (typeof message.content === "string") length += message.content.length;
    else for (const part of message.content) if (part.type === "text") length += part.text.length;
  return length;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * Aborts `controller` when `parent` aborts (at once if it has), and returns how to stop following it. Used
 * instead of AbortSignal.any/timeout on every call: those keep each derived signal alive through weak
 * references, which cost measurable garbage-collection time at thousands of calls a run.
 */
function followAbort(parent: AbortSignal | undefined, controller: AbortController): () => void {
  if (!parent) return () => {};
  if (parent.aborted) {
    controller.abort(parent.reason);
    return () => {};
  }
  const onAbort = () => controller.abort(parent.reason);
  parent.addEventListener("abort", onAbort, { once: true });
  return () => parent.removeEventListener("abort", onAbort);
}
