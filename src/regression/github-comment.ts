// The GitHub Action's script (`dramaturg ci --github`): the check's Markdown as ONE pull-request comment, found
// by the hidden marker it starts with and updated on every push, and appended to the job's summary page.
// Talks to the REST API with fetch; the context comes from the variables GitHub Actions sets.
import { appendFileSync, readFileSync } from "node:fs";
import { z } from "zod";
import { DramaturgError, InputError, issuePath, validateInput } from "../core/index.ts";
import { PR_COMMENT_MARKER } from "./report-markdown.ts";

/** Where the comment goes, read from the environment of a GitHub Actions step. */
export interface GitHubContext {
  /** `GITHUB_API_URL` (GitHub Enterprise has its own), without a trailing slash. */
  apiUrl: string;
  /** `GITHUB_TOKEN`; without one, no comment is posted (the summary still is). Never logged. */
  token?: string;
  owner: string;
  repo: string;
  /** The pull request's number, from the event payload at `GITHUB_EVENT_PATH`; absent outside a pull request. */
  pullRequest?: number;
  /** `GITHUB_STEP_SUMMARY`: the file whose Markdown GitHub shows on the run's summary page. */
  summaryFile?: string;
}

/** A GitHub REST call failed. Retryable on 429 and 5xx; a 403 on a fork's pull request is the read-only token. */
export class GitHubApiError extends DramaturgError {
  readonly status?: number;
  readonly retryable: boolean;

  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super("GitHubApiError", message, { exitCode: 3, cause: options.cause });
    this.status = options.status;
    this.retryable = options.status === undefined || options.status === 429 || options.status >= 500;
  }

  static override isInstance(error: unknown): error is GitHubApiError {
    return DramaturgError.isInstance(error) && error.name === "GitHubApiError";
  }
}

const environmentSchema = z.object({
  GITHUB_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  GITHUB_REPOSITORY: z
    .string({ error: "missing; expected owner/name (GitHub Actions sets it)" })
    .regex(/^[\w.-]+\/[\w.-]+$/, { error: "expected owner/name" }),
  GITHUB_EVENT_PATH: z.string().optional(),
  GITHUB_STEP_SUMMARY: z.string().optional(),
  GITHUB_TOKEN: z.string().optional(),
});

/** The parts of a workflow event payload that name a pull request (pull_request, pull_request_target, issue_comment). */
const eventSchema = z.object({
  pull_request: z.object({ number: z.number().int().positive() }).optional(),
  issue: z.object({ number: z.number().int().positive(), pull_request: z.unknown().optional() }).optional(),
});

/**
 * The context of a GitHub Actions step, checked before anything is judged: a malformed variable or event file
 * is an InputError (exit 2) naming it.
 */
export function gitHubContextFromEnv(env: NodeJS.ProcessEnv = process.env): GitHubContext {
  const blankIsAbsent = Object.fromEntries(
    Object.keys(environmentSchema.shape).map((k) => [k, env[k] === "" ? undefined : env[k]]),
  );
  const parsed = validateInput(environmentSchema, blankIsAbsent);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(`${issuePath(issue.path)}: ${issue.message}`, { place: "environment" });
  }
  const vars = parsed.data;
  const [owner, repo] = vars.GITHUB_REPOSITORY.split("/") as [string, string];
  const context: GitHubContext = {
    apiUrl: (vars.GITHUB_API_URL ?? "https://api.github.com").replace(/\/+$/, ""),
    owner,
    repo,
  };
  if (vars.GITHUB_TOKEN) context.token = vars.GITHUB_TOKEN;
  const pullRequest = vars.GITHUB_EVENT_PATH ? pullRequestOf(vars.GITHUB_EVENT_PATH) : undefined;
  if (pullRequest !== undefined) context.pullRequest = pullRequest;
  if (vars.GITHUB_STEP_SUMMARY) context.summaryFile = vars.GITHUB_STEP_SUMMARY;
  return context;
}

/** The pull request an event is about, or undefined for a push, a schedule or an issue. */
function pullRequestOf(file: string): number | undefined {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new InputError(`cannot read the workflow event as JSON (${(error as Error).message})`, {
      file,
      place: "GITHUB_EVENT_PATH",
      cause: error,
    });
  }
  const parsed = validateInput(eventSchema, json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(issue.message, { file, place: issuePath(issue.path) });
  }
  const { pull_request, issue } = parsed.data;
  return pull_request?.number ?? (issue?.pull_request !== undefined ? issue.number : undefined);
}

/** An issue comment as the REST API lists it: only what finding ours needs. */
const commentSchema = z.object({
  id: z.number().int(),
  body: z.string().nullish(),
  html_url: z.string().optional(),
});
type IssueComment = z.infer<typeof commentSchema>;

/** GitHub refuses a comment body over 65,536 characters. */
export const MAX_COMMENT_LENGTH = 65_536;

export interface UpsertCommentOptions {
  context: Pick<GitHubContext, "apiUrl" | "token" | "owner" | "repo">;
  /** The pull request (an issue, to the comments API). */
  issueNumber: number;
  /** The comment's Markdown; it must start with `marker`. */
  body: string;
  /** The hidden line that makes a comment ours (default: the CI report's). */
  marker?: string;
  /** Injected for tests; the global fetch otherwise. */
  fetch?: typeof globalThis.fetch;
}

export interface UpsertedComment {
  action: "created" | "updated";
  id: number;
  url?: string;
}

/**
 * Creates the pull request's comment, or updates the one whose body starts with the marker: one comment per
 * pull request whatever the number of pushes. Every page of the comments list is read (100 a page), so an
 * old comment on a long thread is still found. A quoted copy of ours (`> <!-- … -->`) does not start with it.
 */
export async function upsertPullRequestComment({
  context,
  issueNumber,
  body,
  marker = PR_COMMENT_MARKER,
  fetch = globalThis.fetch,
}: UpsertCommentOptions): Promise<UpsertedComment> {
  if (!body.startsWith(marker)) throw new Error(`the comment must start with its marker ${marker}`);
  const call = gitHubCaller(context, fetch);
  const base = `${context.apiUrl}/repos/${encodeURIComponent(context.owner)}/${encodeURIComponent(context.repo)}/issues`;
  const text = fitComment(body);
  let mine: IssueComment | undefined;
  let next: string | undefined = `${base}/${issueNumber}/comments?per_page=100`;
  while (next !== undefined && mine === undefined) {
    const response = await call("GET", next);
    const page = validateInput(z.array(commentSchema), await response.json());
    if (!page.success)
      throw new GitHubApiError(
        `the comments list is not what the REST API returns (${issuePath(page.error.issues[0]!.path)}: ${page.error.issues[0]!.message})`,
      );
    mine = page.data.find((c) => c.body?.trimStart().startsWith(marker));
    next = nextPage(response.headers.get("link"), context.apiUrl);
  }
  const saved = mine
    ? await call("PATCH", `${base}/comments/${mine.id}`, { body: text })
    : await call("POST", `${base}/${issueNumber}/comments`, { body: text });
  const comment = validateInput(commentSchema, await saved.json());
  if (!comment.success) throw new GitHubApiError("the saved comment is not what the REST API returns");
  return {
    action: mine ? "updated" : "created",
    id: comment.data.id,
    ...(comment.data.html_url ? { url: comment.data.html_url } : {}),
  };
}

/** The `rel="next"` URL of a Link header, followed only on the API's own origin (the token goes with it). */
function nextPage(link: string | null, apiUrl: string): string | undefined {
  const url = link
    ?.split(",")
    .map((part) => /<([^>]+)>\s*;\s*rel="?next"?/.exec(part)?.[1])
    .find(Boolean);
  if (url === undefined) return undefined;
  if (new URL(url).origin !== new URL(apiUrl).origin)
    throw new GitHubApiError(`the comments list's next page is on another host (${new URL(url).origin})`);
  return url;
}

function fitComment(body: string): string {
  if (body.length <= MAX_COMMENT_LENGTH) return body;
  const note =
    "\n\n… cut here: GitHub keeps 65,536 characters of a comment. The whole report is on the run's summary page and in its HTML artifact.\n";
  return body.slice(0, MAX_COMMENT_LENGTH - note.length) + note;
}

function gitHubCaller(
  context: UpsertCommentOptions["context"],
  fetch: typeof globalThis.fetch,
): (method: string, url: string, json?: unknown) => Promise<Response> {
  return async (method, url, json) => {
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          accept: "application/vnd.github+json",
          "x-github-api-version": "2022-11-28",
          "user-agent": "dramaturg",
          ...(context.token ? { authorization: `Bearer ${context.token}` } : {}),
          ...(json === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
    } catch (error) {
      throw new GitHubApiError(`${method} ${pathOf(url)}: ${(error as Error).message}`, { cause: error });
    }
    if (response.ok) return response;
    // GitHub's error body is `{ message, documentation_url }`; only its message is repeated.
    const said = await response
      .json()
      .then((b: unknown) => (b as { message?: unknown }).message)
      .catch(() => undefined);
    throw new GitHubApiError(
      `${method} ${pathOf(url)} answered ${response.status}${typeof said === "string" ? ` (${said.slice(0, 200)})` : ""}${response.status === 403 ? "; a pull request from a fork gets a read-only token, and the workflow needs `permissions: pull-requests: write`" : ""}`,
      { status: response.status },
    );
  };
}

const pathOf = (url: string) => new URL(url).pathname;

export interface PublishedReport {
  /** The comment posted or updated, when there was a pull request and a token. */
  comment?: UpsertedComment;
  /** Whether the Markdown was appended to the job summary. */
  summary: boolean;
  /** What was left out and why, for the log (never an error: the check's own result stands). */
  notes: string[];
}

/**
 * Publishes the check's Markdown where a pull request's author looks: the job summary, and the pull request's
 * one comment. A comment GitHub refuses (a fork's read-only token, an outage) is a note, not a failure: the
 * check's exit code is the check's, not the comment's.
 */
export async function publishCiReport(
  markdown: string,
  context: GitHubContext,
  { fetch = globalThis.fetch }: { fetch?: typeof globalThis.fetch } = {},
): Promise<PublishedReport> {
  const notes: string[] = [];
  let summary = false;
  if (context.summaryFile) {
    appendFileSync(context.summaryFile, `${markdown.endsWith("\n") ? markdown : `${markdown}\n`}`);
    summary = true;
  }
  if (context.pullRequest === undefined) {
    notes.push("not a pull request event: no comment posted");
    return { summary, notes };
  }
  if (!context.token) {
    notes.push("no GITHUB_TOKEN in the environment: no comment posted");
    return { summary, notes };
  }
  try {
    const comment = await upsertPullRequestComment({
      context,
      issueNumber: context.pullRequest,
      body: markdown,
      fetch,
    });
    return { comment, summary, notes };
  } catch (error) {
    if (!GitHubApiError.isInstance(error)) throw error;
    notes.push(`the pull-request comment was not posted: ${error.message}`);
    return { summary, notes };
  }
}
