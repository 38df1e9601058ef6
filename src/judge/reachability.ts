// Is the model's server there at all? One GET on its base URL, with a deadline of its own, before the first
// call: a server that refuses connections or accepts them and never answers then stops a run in seconds,
// instead of costing a plan's worth of per-call timeouts and retries.
import { JudgeError } from "../core/index.ts";

/** How long the probe waits for any answer (headers of any status) before the server counts as unreachable. */
export const DEFAULT_PROBE_TIMEOUT_MS = 10_000;

/** Where a provider's API starts when no base URL is given. */
const DEFAULT_BASE_URLS: Readonly<Record<string, string>> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com/v1",
};

/** The base URL a model of `provider` talks to: the given one, else the provider's own. */
export function endpointOf(provider: string, baseUrl: string | undefined): string | undefined {
  return baseUrl ?? DEFAULT_BASE_URLS[provider];
}

export interface ProbeOptions {
  /** The server's base URL as the run record shows it (no credentials, no query). */
  url: string;
  /** Deadline for an answer, in ms. Default {@link DEFAULT_PROBE_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** What the user should do when it fails (a flag to check, a command to run). */
  fix?: string;
  /** Whose server it is, for the message: "judge" (default) or "agent model". */
  role?: string;
}

/**
 * Resolves when the server at `url` answers anything (any HTTP status: reachability, not credentials, is
 * what is asked). Rejects with a fatal {@link JudgeError} of kind `network` (not retryable) naming the URL,
 * what happened, and the fix.
 */
export async function probeEndpoint({
  url,
  timeoutMs = DEFAULT_PROBE_TIMEOUT_MS,
  fix = "check that the server is running and the base URL (--judge-base-url), then try again; `dramaturg doctor` checks the judge",
  role = "judge",
}: ProbeOptions): Promise<void> {
  const { nodeFetch } = await import("./node-fetch.ts");
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await nodeFetch(`${url.replace(/\/$/, "")}/models`, { method: "GET", signal });
    await response.arrayBuffer().catch(() => undefined);
  } catch (error) {
    const why = signal.aborted
      ? `no answer within ${Math.round(timeoutMs / 100) / 10} s (the server accepts connections but does not answer)`
      : describeNetworkFailure(error);
    throw new JudgeError(`the ${role} at ${url} cannot be reached: ${why}. Fix: ${fix}`, {
      kind: "network",
      retryable: false,
    });
  }
}

/** "connection refused (ECONNREFUSED)" and the like, from a fetch failure's cause. */
function describeNetworkFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  const code = cause?.code;
  const plain: Record<string, string> = {
    ECONNREFUSED: "connection refused",
    ENOTFOUND: "no such host",
    EAI_AGAIN: "the host name could not be resolved",
    ECONNRESET: "the connection was reset",
    EHOSTUNREACH: "no route to the host",
    ENETUNREACH: "no route to the network",
    ETIMEDOUT: "the connection timed out",
  };
  if (code) return `${plain[code] ?? "the connection failed"} (${code})`;
  return cause?.message ?? (error instanceof Error ? error.message : String(error));
}
