// What each tracing tool implements: how it is configured (from the environment only), which scores it can
// hold, and how a batch of them is sent. The export run (export-run.ts) does the rest for all of them alike.
import type { ExportTarget } from "../core/index.ts";
import type { DeliveryOptions } from "./delivery.ts";
import type { ExportScore } from "./export-score.ts";

export { EXPORT_TARGETS, type ExportTarget } from "../core/index.ts";

/** What a destination knows of the evaluation beside its scores. */
export interface ExportContext {
  evaluationId: string;
  kind: string;
}

export interface ExportDestination {
  readonly target: ExportTarget;
  /** The ledger's key for it: the target and its host, never a credential. */
  readonly key: string;
  /**
   * The tools whose trace, span and session ids this one knows: Langfuse its own and OTLP's (it ingests OTLP
   * under the same ids), Phoenix and an OTLP collector only OTLP's.
   */
  readonly holds: readonly string[];
  /** Scores per request (or per group of concurrent requests). */
  readonly batchSize: number;
  /** Records the tool accepted the request for but rejected, which must not be sent again (OTLP partial success). */
  readonly rejected?: number;
  /** Why a score cannot be held here (e.g. Phoenix annotates only spans and sessions it has), else undefined. */
  leftOut(score: ExportScore): string | undefined;
  /** Work before the first batch, e.g. Langfuse's score configs; given only the scores about to be sent. */
  prepare?(scores: readonly ExportScore[], context: ExportContext): Promise<void>;
  /**
   * Sends a batch, calling `arrived` for each score as soon as it is known to have arrived, and returns those
   * the tool refused on their own (with why). Throws on refused credentials or an unavailable server: the scores
   * that arrived before were reported.
   */
  send(
    batch: readonly ExportScore[],
    context: ExportContext,
    arrived: (score: ExportScore) => void,
  ): Promise<RefusedScore[]>;
}

/** A score the tool refused on its own (a 400, a 404 for an unknown span…), and why. */
export interface RefusedScore {
  item: ExportScore;
  reason: string;
}

/** The environment a destination reads its host and keys from (process.env by default). */
export type ExportEnv = Readonly<Record<string, string | undefined>>;

export interface DestinationOptions extends DeliveryOptions {
  env: ExportEnv;
}

/** A host from the environment, without its trailing slash; a malformed one names its variable. */
export function hostFrom(value: string, variable: string, invalid: (message: string) => Error): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`${variable} must be an http(s) URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw invalid(`${variable} must be an http(s) URL`);
  // The host is printed and kept in the ledger: credentials belong in the key variables, never in it.
  if (url.username || url.password)
    throw invalid(`${variable} must not hold credentials; give the keys in their own variables`);
  return value.replace(/\/+$/, "");
}
