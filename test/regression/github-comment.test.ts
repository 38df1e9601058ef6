// The Action's script against a local fake of GitHub's comment endpoints: one comment per pull request, found
// by its marker across pages, updated in place; a refused comment is a note; the context is checked at the edge.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InputError } from "../../src/core/index.ts";
import {
  GitHubApiError,
  gitHubContextFromEnv,
  MAX_COMMENT_LENGTH,
  PR_COMMENT_MARKER,
  publishCiReport,
  upsertPullRequestComment,
} from "../../src/regression/index.ts";
import { tempDir } from "../temp-dir.ts";
import { type FakeGitHub, otherComment, startFakeGitHub } from "./fake-github.ts";

let github: FakeGitHub;
beforeAll(async () => {
  github = await startFakeGitHub({ pageSize: 2 });
});
afterAll(() => github.close());

const context = () => ({ apiUrl: github.url, token: github.token, owner: "acme", repo: "agents" });
const report = (table: string) => `${PR_COMMENT_MARKER}\n### Persona check\n\n${table}\n`;

describe("the pull request's one comment", () => {
  it("is created on the first push and updated on the second, read across every page of the thread", async () => {
    github.comments.set(7, [
      otherComment(1, "LGTM"),
      otherComment(2, `> ${PR_COMMENT_MARKER}\n> quoted, not ours`),
      otherComment(3, "one more"),
    ]);
    const first = await upsertPullRequestComment({
      context: context(),
      issueNumber: 7,
      body: report("| a | 7 |"),
    });
    expect(first.action).toBe("created");
    github.comments.get(7)!.push(otherComment(4, "after the check"), otherComment(5, "and another"));
    github.requests.length = 0;
    const second = await upsertPullRequestComment({
      context: context(),
      issueNumber: 7,
      body: report("| a | 4 |"),
    });
    expect(second).toMatchObject({ action: "updated", id: first.id });
    const ours = github.comments.get(7)!.filter((c) => c.body.includes("Persona check"));
    expect(ours).toHaveLength(1);
    expect(ours[0]!.body).toBe(report("| a | 4 |"));
    // Ours is the 4th of 6 comments at 2 a page: page 2 is read, page 3 never is.
    expect(github.requests).toEqual([
      "GET /repos/acme/agents/issues/7/comments?per_page=100",
      "GET /repos/acme/agents/issues/7/comments?per_page=100&page=2",
      `PATCH /repos/acme/agents/issues/comments/${first.id}`,
    ]);
  });

  it("a body longer than GitHub keeps is cut with a note saying where the whole report is", async () => {
    const long = report("x".repeat(MAX_COMMENT_LENGTH));
    await upsertPullRequestComment({ context: context(), issueNumber: 8, body: long });
    const [comment] = github.comments.get(8)!;
    expect(comment!.body.length).toBeLessThanOrEqual(MAX_COMMENT_LENGTH);
    expect(comment!.body).toMatch(/summary page and in its HTML artifact/);
  });

  it("a refused call is a GitHubApiError with the status and GitHub's message, never the token", async () => {
    github.failNext(403);
    const error = await upsertPullRequestComment({
      context: context(),
      issueNumber: 9,
      body: report("x"),
    }).catch((e: unknown) => e);
    expect(GitHubApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 403, retryable: false });
    expect(String((error as Error).message)).toMatch(
      /answered 403 \(Resource not accessible by integration\).*read-only token/,
    );
    expect(String((error as Error).message)).not.toContain(github.token);
  });

  it("a wrong token is refused by the fake (it checks the credentials it is sent)", async () => {
    const error = await upsertPullRequestComment({
      context: { ...context(), token: "ghs_wrong" },
      issueNumber: 9,
      body: report("x"),
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 401 });
  });
});

describe("publishing a check's report", () => {
  it("appends the Markdown to the job summary and posts the comment", async () => {
    const dir = tempDir();
    const summaryFile = join(dir, "summary.md");
    writeFileSync(summaryFile, "earlier step\n");
    const published = await publishCiReport(report("| b | 6 |"), {
      ...context(),
      pullRequest: 11,
      summaryFile,
    });
    expect(published.comment?.action).toBe("created");
    expect(readFileSync(summaryFile, "utf8")).toBe(`earlier step\n${report("| b | 6 |")}`);
    expect(github.comments.get(11)).toHaveLength(1);
  });

  it("a comment GitHub refuses is a note, and the summary is still written", async () => {
    const dir = tempDir();
    const summaryFile = join(dir, "summary.md");
    github.failNext(502, 1);
    const published = await publishCiReport(report("x"), { ...context(), pullRequest: 12, summaryFile });
    expect(published.comment).toBeUndefined();
    expect(published.notes).toEqual([expect.stringMatching(/not posted: GET .* answered 502/)]);
    expect(readFileSync(summaryFile, "utf8")).toContain("x");
  });

  it("outside a pull request, only the summary: no call is made", async () => {
    const before = github.requests.length;
    const published = await publishCiReport(report("x"), context());
    expect(published).toEqual({ summary: false, notes: ["not a pull request event: no comment posted"] });
    expect(github.requests.length).toBe(before);
  });
});

describe("the context of a GitHub Actions step", () => {
  const event = (payload: unknown) => {
    const file = join(tempDir(), "event.json");
    writeFileSync(file, JSON.stringify(payload));
    return file;
  };

  it("reads the pull request's number from the event, the API URL, token and summary file from the variables", () => {
    const eventPath = event({ action: "synchronize", pull_request: { number: 42, title: "x" } });
    expect(
      gitHubContextFromEnv({
        GITHUB_API_URL: "https://ghe.example.com/api/v3/",
        GITHUB_REPOSITORY: "acme/agents",
        GITHUB_TOKEN: "t",
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_STEP_SUMMARY: "/tmp/s.md",
      }),
    ).toEqual({
      apiUrl: "https://ghe.example.com/api/v3",
      token: "t",
      owner: "acme",
      repo: "agents",
      pullRequest: 42,
      summaryFile: "/tmp/s.md",
    });
  });

  it("a comment on a pull request names it through issue.pull_request; a push names none", () => {
    const comment = event({ issue: { number: 5, pull_request: { url: "u" } } });
    const push = event({ ref: "refs/heads/main", commits: [] });
    const on = (p: string) => gitHubContextFromEnv({ GITHUB_REPOSITORY: "a/b", GITHUB_EVENT_PATH: p });
    expect(on(comment).pullRequest).toBe(5);
    expect(on(push).pullRequest).toBeUndefined();
    expect(on(push).apiUrl).toBe("https://api.github.com");
  });

  it("a malformed repository or event is an InputError naming the variable or the event's field", () => {
    const bad = (env: NodeJS.ProcessEnv) => {
      try {
        gitHubContextFromEnv(env);
      } catch (error) {
        expect(InputError.isInstance(error)).toBe(true);
        return (error as Error).message;
      }
      throw new Error("no error");
    };
    expect(bad({})).toBe(
      "environment: GITHUB_REPOSITORY: missing; expected owner/name (GitHub Actions sets it)",
    );
    expect(bad({ GITHUB_REPOSITORY: "just-a-name" })).toBe(
      "environment: GITHUB_REPOSITORY: expected owner/name",
    );
    const eventPath = event({ pull_request: { number: "42" } });
    expect(bad({ GITHUB_REPOSITORY: "a/b", GITHUB_EVENT_PATH: eventPath })).toBe(
      `${eventPath}:pull_request.number: expected a number, got the string "42"`,
    );
  });
});
