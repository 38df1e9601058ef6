// Estimates what a plan will cost before any call is made: judge requests, model calls (double checks
// and one conversation per count item included) and tokens, from the exact prompts that would be sent.
import { type TokenUsage, verdictKeyString } from "../core/index.ts";
import { pendingCalls, requestOf } from "../engine/index.ts";
import {
  type JudgeDescriptor,
  type JudgeRequest,
  peekVerdictCache,
  promptFingerprint,
  type VerdictCacheBackend,
} from "../judge/index.ts";
import type { EvaluationPlan } from "./types.ts";

/** Tokens per character of English prose for GPT/Claude-class tokenizers (about 4 characters a token). */
const CHARS_PER_TOKEN = 4;
/**
 * Output tokens assumed per judged item: the JSON answer with its reasoning. Input tokens
 * are computed from the real prompts; output depends on the model, so it is the rougher half.
 */
export const OUTPUT_TOKENS_PER_ITEM = { score: 60, check: 50, count: 120 } as const;

export interface PlanEstimate {
  /** Judge requests (one per planned call not skipped). */
  requests: number;
  /** Model calls: conversations per request, twice with double-check. */
  calls: number;
  verdicts: number;
  usage: TokenUsage;
  byDimension: Record<string, { requests: number; verdicts: number }>;
}

function tokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

function messageChars(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (Array.isArray(content))
    return content.reduce(
      (n: number, part) => n + (typeof part?.text === "string" ? part.text.length : 0),
      0,
    );
  return 0;
}

export function estimatePlan(plan: EvaluationPlan, skip?: ReadonlySet<string>): PlanEstimate {
  const estimate: PlanEstimate = {
    requests: 0,
    calls: 0,
    verdicts: 0,
    usage: { input_tokens: 0, output_tokens: 0 },
    byDimension: {},
  };
  for (const call of pendingCalls(plan, skip)) {
    // Each call's request (and its context) is built for the estimate and let go.
    const request = requestOf(call);
    const { items } = request;
    const fingerprint = promptFingerprint(request);
    estimate.requests++;
    estimate.verdicts += items.length;
    const dim = (estimate.byDimension[items[0]!.key.dimension] ??= { requests: 0, verdicts: 0 });
    dim.requests++;
    dim.verdicts += items.length;
    for (const conversation of fingerprint.conversations) {
      const inputChars =
        conversation.system.length + conversation.messages.reduce((n, m) => n + messageChars(m.content), 0);
      const output = OUTPUT_TOKENS_PER_ITEM[conversation.kind] * conversation.ids.length;
      estimate.calls++;
      estimate.usage.input_tokens += tokens(inputChars);
      estimate.usage.output_tokens += output;
      if (request.doubleCheck) {
        // The second turn resends the conversation, the first answer and the follow-up question.
        estimate.calls++;
        estimate.usage.input_tokens += tokens(
          inputChars + output * CHARS_PER_TOKEN + (fingerprint.double_check?.length ?? 0),
        );
        estimate.usage.output_tokens += output;
      }
    }
  }
  return estimate;
}

/** What the verdict cache would already answer of a plan: left out of an estimate, as a run would skip it. */
export interface CachedShare {
  /** Requests (and their verdicts) the cache answers whole. */
  cached: { requests: number; verdicts: number };
  /** Verdict keys (verdictKeyString) of those requests, to leave out of {@link estimatePlan}. */
  skip: Set<string>;
}

/** Requests looked up at once by {@link cachedShare}: their contexts are held only while they are. */
const PEEK_WINDOW = 1_000;

/** Looks up, without judging or writing, which of the plan's requests the cache would answer for this judge. */
export async function cachedShare(
  plan: EvaluationPlan,
  { descriptor, backend, mode }: { descriptor: JudgeDescriptor; backend: VerdictCacheBackend; mode?: string },
): Promise<CachedShare> {
  const share: CachedShare = { cached: { requests: 0, verdicts: 0 }, skip: new Set() };
  const peekWindow = async (requests: JudgeRequest[]) => {
    const peek = await peekVerdictCache({ requests, descriptor, backend, mode });
    share.cached.requests += peek.requests;
    share.cached.verdicts += peek.verdicts;
    requests.forEach((r, k) => {
      if (peek.served[k]) for (const item of r.items) share.skip.add(verdictKeyString(item.key));
    });
  };
  let window: JudgeRequest[] = [];
  for (const call of plan.calls()) {
    window.push(requestOf(call));
    if (window.length >= PEEK_WINDOW) {
      await peekWindow(window);
      window = [];
    }
  }
  if (window.length) await peekWindow(window);
  return share;
}
