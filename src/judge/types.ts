// The judge contract: the only part of Dramaturg that talks to an LLM. Scorers know this interface,
// not any provider (as the AI SDK's provider contract stands apart from its implementations).
import type { TokenUsage, Verdict, VerdictKey } from "../core/index.ts";

/** What kind of answer an item asks for. */
export type VerdictKind = "score" | "count" | "check";

/** Who judges and how; stored with every run so runs with different judges are not compared blindly. */
export interface JudgeDescriptor {
  /** `openai`, `anthropic`, `openai-compatible`, `fixtures`, `mock`… */
  provider: string;
  /** Model id; for replay judges the judge that recorded the fixtures, or `hand-written`. */
  model: string;
  temperature?: number;
  /** Base URL of an OpenAI-compatible server (never carries credentials). */
  base_url?: string;
  /** Hash of the prompt templates; changes whenever a prompt sentence changes. */
  prompt_version: string;
}

/** One claim to judge. Items of one request share the request's context. */
export interface JudgeItem {
  key: VerdictKey;
  kind: VerdictKind;
  /** The claim after template substitution. */
  claim: string;
}

/** What the judge reads besides the claims. All agent text in here is untrusted data. */
export interface JudgeContext {
  /** The persona specification, present only when the proposition set includes personas. */
  persona?: { name: string; text: string };
  /** The rendered (windowed) trajectory; see {@link trajectoryOfLines} for one built from its lines. */
  trajectory: {
    title: string;
    /** Read-only when built by {@link trajectoryOfLines}: assigning it throws, rather than leave lines stale. */
    text: string;
    /**
     * The lines whose join with "\n" the text is, when the context was built from them: the verdict cache
     * then digests each line once, however many windows share it, instead of every window's whole text.
     */
    readonly lines?: readonly string[];
  };
  /** The message under evaluation, for message-level dimensions. */
  action?: { name: string; text: string };
  /** Algorithmic statistics given as supplementary evidence (n-gram overlap, vocabulary). */
  evidence?: string;
  /** Anything else the caller wants the judge to know. */
  additional?: string;
}

export interface JudgeRequest {
  /** 1 item in individual mode; up to 10 in batch mode. */
  items: JudgeItem[];
  context: JudgeContext;
  /** Ask "are you sure?" in a second turn; the revised answer replaces the first. */
  doubleCheck: boolean;
}

export interface JudgeResponse {
  /** One verdict per item, in item order: judged, or errored. Never a default score. */
  verdicts: Verdict[];
  usage: TokenUsage;
  /** Model calls made (retries and double-check turns included). */
  calls: number;
}

export interface JudgeCallOptions {
  signal?: AbortSignal;
  /**
   * Called as each model call of this request goes out to the provider (retries and double-check turns
   * included): how a caller that abandons a request at a deadline still counts the calls it was billed for.
   */
  onCall?: () => void;
}

export interface Judge {
  readonly descriptor: JudgeDescriptor;
  /**
   * Set when the judge itself never has more than this many model calls in flight, however many requests
   * are under way: a caller may then keep more requests under way than it wants calls in flight, so that
   * a request is ready to go out as soon as a call ends. `LlmJudge` sets it to its concurrency.
   */
  readonly inFlightLimit?: number;
  judge(request: JudgeRequest, options?: JudgeCallOptions): Promise<JudgeResponse>;
  close?(): Promise<void>;
}

/** Most items one batched call may carry. */
export const MAX_BATCH_SIZE = 10;

/** A trajectory made of its lines, whose text is joined only when read (a warm cache never reads it). */
export function trajectoryOfLines(title: string, lines: readonly string[]): JudgeContext["trajectory"] {
  let text: string | undefined;
  return {
    title,
    lines,
    get text() {
      text ??= lines.join("\n");
      return text;
    },
  };
}
