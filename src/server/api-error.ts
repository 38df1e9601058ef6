// The API's one error shape, `{error: {code, message, path?}}`, and the error that carries it to the
// error handler from anywhere in a request: a status, a stable code, and the JSON path of bad input.

/** The body of every error response. */
export interface ApiErrorBody {
  error: {
    /** Stable, for programs: `bad_request`, `not_found`, `unauthorized`, `payload_too_large`… */
    code: string;
    /** For people: what was wrong and what was expected. */
    message: string;
    /** Where in the input: a JSON path (`turns[0].user_message`), a query parameter, or `line L, column C`. */
    path?: string;
  };
}

export type ApiErrorStatus = 400 | 401 | 404 | 409 | 413 | 415 | 500 | 502 | 503;

const MARKER = Symbol.for("dramaturg.ApiError");

export class ApiError extends Error {
  readonly [MARKER] = true;
  readonly status: ApiErrorStatus;
  readonly code: string;
  readonly path?: string;

  constructor(status: ApiErrorStatus, code: string, message: string, path?: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.path = path;
  }

  static isInstance(error: unknown): error is ApiError {
    return typeof error === "object" && error !== null && MARKER in error;
  }

  get body(): ApiErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.path ? { path: this.path } : {}) } };
  }
}

export const notFound = (what: string) => new ApiError(404, "not_found", `${what} does not exist`);
