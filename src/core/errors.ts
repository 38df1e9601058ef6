// Error kinds shared by every module. Catch by kind (`X.isInstance(e)`), never by message text.
import { readFileSync } from "node:fs";

const marker = Symbol.for("dramaturg.error");

/** Base class: every Dramaturg error has a stable `name` and an exit code for the CLI. */
export class DramaturgError extends Error {
  readonly [marker] = true;
  /** Exit code the CLI uses when this error ends a command (DESIGN.md, Exit codes). */
  readonly exitCode: number;

  constructor(name: string, message: string, options: { exitCode: number; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = name;
    this.exitCode = options.exitCode;
  }

  static isInstance(error: unknown): error is DramaturgError {
    return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }
}

/** Bad input from the user: a file, a flag, a project setting. Exit code 2. */
export class InputError extends DramaturgError {
  /** The file the problem is in, if any. */
  readonly file?: string;
  /** Where in the file: `line 12` or a JSON path such as `messages[3].sender`. */
  readonly place?: string;

  constructor(message: string, options: { file?: string; place?: string; cause?: unknown } = {}) {
    const where = [options.file, options.place].filter(Boolean).join(":");
    super("InputError", where ? `${where}: ${message}` : message, { exitCode: 2, cause: options.cause });
    this.file = options.file;
    this.place = options.place;
  }

  static override isInstance(error: unknown): error is InputError {
    return DramaturgError.isInstance(error) && error.name === "InputError";
  }
}

/** A user's file as text, or an InputError naming it: `FILE: cannot read <what> (ENOENT)`. */
export function readInputFile(file: string, what: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new InputError(`cannot read ${what} (${(error as NodeJS.ErrnoException).code ?? "error"})`, {
      file,
      cause: error,
    });
  }
}

/**
 * Why a judge call failed, for callers that decide what to do or say by it (never by message text):
 * - `auth`: the provider rejected the credentials or denied access (HTTP 401, 403);
 * - `model-not-found`: no such model or endpoint (HTTP 404);
 * - `rate-limit`: too many requests (HTTP 429);
 * - `timeout`: no answer within the time limit;
 * - `server`: the provider failed (HTTP 5xx);
 * - `bad-request`: the provider refused the request as sent (another HTTP 4xx);
 * - `malformed`: an answer came, but not one that fits the schema or the claims asked;
 * - `network`: the provider could not be reached;
 * - `unknown`: anything else.
 */
export type JudgeErrorKind =
  | "auth"
  | "model-not-found"
  | "rate-limit"
  | "timeout"
  | "server"
  | "bad-request"
  | "malformed"
  | "network"
  | "unknown";

/** The judge could not give a verdict (timeout, refused, malformed after retries). */
export class JudgeError extends DramaturgError {
  /** Why the call failed; see {@link JudgeErrorKind}. */
  readonly kind: JudgeErrorKind;
  /** Whether trying the same call again may succeed (429, 5xx, timeouts). */
  readonly retryable: boolean;
  /** HTTP status, when the failure came from a provider response. */
  readonly status?: number;
  /** Milliseconds the provider asked us to wait before retrying (Retry-After). */
  readonly retryAfterMs?: number;

  constructor(
    message: string,
    options: {
      kind: JudgeErrorKind;
      retryable: boolean;
      status?: number;
      retryAfterMs?: number;
      cause?: unknown;
    },
  ) {
    super("JudgeError", message, { exitCode: 3, cause: options.cause });
    this.kind = options.kind;
    this.retryable = options.retryable;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }

  static override isInstance(error: unknown): error is JudgeError {
    return DramaturgError.isInstance(error) && error.name === "JudgeError";
  }
}

/** A fixture judge was asked for a verdict it does not have. */
export class MissingVerdictError extends DramaturgError {
  readonly key: string;

  constructor(key: string, file?: string) {
    super("MissingVerdictError", `no fixture verdict for ${key}${file ? ` in ${file}` : ""}`, {
      exitCode: 3,
    });
    this.key = key;
  }

  static override isInstance(error: unknown): error is MissingVerdictError {
    return DramaturgError.isInstance(error) && error.name === "MissingVerdictError";
  }
}

/** The store could not be opened or written. Exit code 3. */
export class StoreError extends DramaturgError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("StoreError", message, { exitCode: 3, cause: options.cause });
  }

  static override isInstance(error: unknown): error is StoreError {
    return DramaturgError.isInstance(error) && error.name === "StoreError";
  }
}

/**
 * The user stopped an evaluation (Ctrl-C, SIGTERM). What was judged is stored; the evaluation is
 * marked interrupted and a resume completes it. Exit code 130, as for a shell's SIGINT.
 */
export class InterruptedError extends DramaturgError {
  readonly evaluationId: string;
  /** Verdicts stored (judged now or before) and planned in all. */
  readonly done: number;
  readonly total: number;

  constructor({
    evaluationId,
    done,
    total,
    kind = "persona",
  }: { evaluationId: string; done: number; total: number; kind?: string }) {
    const command = kind === "session" ? "dramaturg session analyze --resume" : "dramaturg eval --resume";
    super(
      "InterruptedError",
      `interrupted after ${done} of ${total} verdicts; \`${command} ${evaluationId.slice(0, 8)}\` completes it`,
      { exitCode: 130 },
    );
    this.evaluationId = evaluationId;
    this.done = done;
    this.total = total;
  }

  static override isInstance(error: unknown): error is InterruptedError {
    return DramaturgError.isInstance(error) && error.name === "InterruptedError";
  }
}
