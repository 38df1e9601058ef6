// What an exporter sends: one score of a stored evaluation, named, scaled, explained and attached to the trace,
// span or session it judges. Every exporter (Langfuse, Phoenix, OTLP) maps this one shape to its own API.
import { createHash } from "node:crypto";
import { DramaturgError } from "../core/index.ts";

/** Where a score belongs in the tracing tool: ids kept from the messages' source, when they had them. */
export interface ScoreAttachment {
  /** The trace the judged messages came from (OTLP, Langfuse, Phoenix). */
  traceId?: string;
  /** The judged span (an agent's interaction) within that trace: Langfuse's observation. */
  spanId?: string;
  /** The session (conversation) the messages belong to; the evaluation's own when nothing else is known. */
  sessionId?: string;
}

/** One exported score. */
export interface ExportScore {
  /** Stable within its evaluation: what a re-export finds again (`persona|ines|adherence`). */
  key: string;
  /** A UUID made from the evaluation and the key, so a re-export upserts instead of duplicating. */
  id: string;
  /** The score's name in the tool: a dimension or metric, `dimension.proposition` for a proposition. */
  name: string;
  /** Dimension-level scores get a score config (Langfuse); proposition scores do not. */
  level: "dimension" | "proposition";
  value: number;
  /** The range the value lies in: 0–9 for persona dimensions, 0–1 for session and conversation metrics. */
  scale: { min: number; max?: number };
  /** Which way is good: higher (the default) or lower (an attack's success rate). */
  better?: "higher" | "lower";
  /** The judge's reasoning, as the comment or explanation. */
  comment?: string;
  /** A short label (`pass`/`fail` at the scale's midpoint), for tools that show one. */
  label?: string;
  attach: ScoreAttachment;
  /**
   * The tracing tool the attachment's ids came from (`langfuse`, `langsmith`, `otlp`), when known: a destination
   * that does not hold that tool's traces sends the score as if it had none (export-run.ts).
   */
  source?: string;
  /** Plain facts beside the score: the evaluation, the agent, the kind. */
  metadata: Record<string, string | number>;
}

/** A deterministic UUID (version-4 layout) from text: the same evaluation and key give the same id. */
export function stableScoreId(evaluationId: string, key: string): string {
  const h = createHash("sha256").update(`${evaluationId}\n${key}`).digest("hex");
  const variant = ((Number.parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** `pass` at or above the scale's midpoint (at or below it when lower is better), else `fail`. */
export function passLabel(
  value: number,
  scale: ExportScore["scale"],
  better: ExportScore["better"] = "higher",
): string | undefined {
  if (scale.max === undefined) return undefined;
  const middle = (scale.min + scale.max) / 2;
  return (better === "lower" ? value <= middle : value >= middle) ? "pass" : "fail";
}

/**
 * The tracing tool refused the credentials (401/403). Exit code 3: the export could not complete, and the
 * message says which environment variables to check, never their values.
 */
export class ExportAuthError extends DramaturgError {
  constructor(message: string) {
    super("ExportAuthError", message, { exitCode: 3 });
  }

  static override isInstance(error: unknown): error is ExportAuthError {
    return DramaturgError.isInstance(error) && error.name === "ExportAuthError";
  }
}

/** Some scores did not arrive after every retry (or the server could not be reached). Exit code 3. */
export class ExportDeliveryError extends DramaturgError {
  /** How many were sent and how many did not arrive. */
  readonly sent: number;
  readonly failed: number;

  constructor(message: string, { sent, failed, cause }: { sent: number; failed: number; cause?: unknown }) {
    super("ExportDeliveryError", message, { exitCode: 3, cause });
    this.sent = sent;
    this.failed = failed;
  }

  static override isInstance(error: unknown): error is ExportDeliveryError {
    return DramaturgError.isInstance(error) && error.name === "ExportDeliveryError";
  }
}
