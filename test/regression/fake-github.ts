// A local stand-in for the three GitHub REST endpoints the Action's script calls: list an issue's comments
// (paginated with a Link header, as api.github.com does), create one, update one. On 127.0.0.1, any free port;
// it never keeps the test process alive, and `close()` stops it. Shapes as in GitHub's REST reference
// (issues/comments): `{ id, body, html_url, user: { login, type } }`; errors as `{ message }`.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeComment {
  id: number;
  body: string;
  html_url: string;
  user: { login: string; type: "Bot" | "User" };
}

export interface FakeGitHub {
  /** The base URL, as GITHUB_API_URL. */
  url: string;
  /** The token every request must bear, as GITHUB_TOKEN. */
  token: string;
  /** Comments by issue number. */
  comments: Map<number, FakeComment[]>;
  /** Every request as `METHOD /path?query`. */
  requests: string[];
  /** Answer the next N requests with this status (403 for a fork's read-only token, 502 for an outage). */
  failNext(status: number, times?: number): void;
  close(): Promise<void>;
}

export async function startFakeGitHub({
  repository = "acme/agents",
  pageSize,
}: {
  /** The owner/name the endpoints answer for; any other is a 404. */
  repository?: string;
  /** Comments per page whatever per_page asks (GitHub's maximum is 100): small pages test the pagination. */
  pageSize?: number;
} = {}): Promise<FakeGitHub> {
  const token = "ghs_fakeTokenForTests0000";
  const comments = new Map<number, FakeComment[]>();
  const requests: string[] = [];
  let nextId = 1000;
  let failures: { status: number; times: number } | undefined;

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
    res.end(JSON.stringify(body));
  };
  const readJson = async (req: IncomingMessage): Promise<unknown> => {
    let text = "";
    for await (const chunk of req) text += chunk;
    return JSON.parse(text);
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url!, "http://127.0.0.1");
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    if (failures && failures.times > 0) {
      failures.times--;
      return send(res, failures.status, {
        message: failures.status === 403 ? "Resource not accessible by integration" : "Server Error",
      });
    }
    if (req.headers.authorization !== `Bearer ${token}`)
      return send(res, 401, { message: "Bad credentials" });
    if (req.headers.accept !== "application/vnd.github+json")
      return send(res, 415, { message: "expected Accept: application/vnd.github+json" });
    const prefix = `/repos/${repository}/issues/`;
    if (!url.pathname.startsWith(prefix)) return send(res, 404, { message: "Not Found" });
    const rest = url.pathname.slice(prefix.length);
    const list = /^(\d+)\/comments$/.exec(rest);
    const one = /^comments\/(\d+)$/.exec(rest);
    if (list && req.method === "GET") {
      const all = comments.get(Number(list[1])) ?? [];
      const perPage = pageSize ?? Math.min(100, Number(url.searchParams.get("per_page") ?? 30));
      const page = Number(url.searchParams.get("page") ?? 1);
      const last = Math.max(1, Math.ceil(all.length / perPage));
      const link = (p: number, rel: string) => {
        const at = new URL(url);
        at.host = req.headers.host!;
        at.protocol = "http:";
        at.searchParams.set("page", String(p));
        return `<${at.href}>; rel="${rel}"`;
      };
      const links = page < last ? [link(page + 1, "next"), link(last, "last")] : [];
      return send(
        res,
        200,
        all.slice((page - 1) * perPage, page * perPage),
        links.length ? { link: links.join(", ") } : {},
      );
    }
    if (list && req.method === "POST") {
      const issue = Number(list[1]);
      const { body } = (await readJson(req)) as { body?: unknown };
      if (typeof body !== "string") return send(res, 422, { message: "body is required" });
      if (body.length > 65_536) return send(res, 422, { message: "body is too long" });
      const id = nextId++;
      const comment: FakeComment = {
        id,
        body,
        html_url: `https://github.com/${repository}/pull/${issue}#issuecomment-${id}`,
        user: { login: "github-actions[bot]", type: "Bot" },
      };
      comments.set(issue, [...(comments.get(issue) ?? []), comment]);
      return send(res, 201, comment);
    }
    if (one && req.method === "PATCH") {
      const comment = [...comments.values()].flat().find((c) => c.id === Number(one[1]));
      if (!comment) return send(res, 404, { message: "Not Found" });
      const { body } = (await readJson(req)) as { body?: unknown };
      if (typeof body !== "string") return send(res, 422, { message: "body is required" });
      comment.body = body;
      return send(res, 200, comment);
    }
    return send(res, 404, { message: "Not Found" });
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    comments,
    requests,
    failNext(status, times = 1) {
      failures = { status, times };
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** Someone else's comment, as a thread fills up before the check's. */
export function otherComment(id: number, body: string): FakeComment {
  return {
    id,
    body,
    html_url: `https://github.com/acme/agents/pull/7#issuecomment-${id}`,
    user: { login: "a-reviewer", type: "User" },
  };
}
