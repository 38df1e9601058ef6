import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it, vi } from "vitest";
import { nodeFetch } from "../../src/judge/node-fetch.ts";

let server: Server | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A loopback server answering with `handle`; resolves to its base URL. */
async function serve(
  handle: (req: IncomingMessage, body: string, res: ServerResponse) => void,
): Promise<string> {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, Buffer.concat(chunks).toString("utf8"), res));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("nodeFetch", () => {
  it("sends the method, headers and body, and answers status, headers and body as fetch does", async () => {
    const url = await serve((req, body, res) => {
      res.writeHead(201, "Made", {
        "content-type": "application/json",
        "x-echo": req.headers["x-key"] ?? "",
      });
      res.end(JSON.stringify({ method: req.method, body, length: req.headers["content-length"] }));
    });
    const response = await nodeFetch(`${url}/v1/chat`, {
      method: "POST",
      headers: { "x-key": "k1", "content-type": "application/json" },
      body: '{"a":"é"}',
    });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe("Made");
    expect(response.ok).toBe(true);
    expect(response.headers.get("x-echo")).toBe("k1");
    expect(await response.json()).toEqual({ method: "POST", body: '{"a":"é"}', length: "10" });
  });

  it("sends each URL's own path, query and credentials, call after call (options are kept per URL)", async () => {
    const seen: string[] = [];
    const url = await serve((req, _body, res) => {
      seen.push(`${req.url} ${req.headers.authorization ?? "-"}`);
      res.end("ok");
    });
    const withUser = url.replace("http://", "http://judge:s3cret@");
    for (const target of [
      `${url}/v1/a?x=1`,
      `${url}/v1/b`,
      `${withUser}/v1/c`,
      `${url}/v1/a?x=1`,
      `${url}/v1/b`,
    ])
      expect(await (await nodeFetch(target)).text()).toBe("ok");
    const basic = `Basic ${Buffer.from("judge:s3cret").toString("base64")}`;
    expect(seen).toEqual(["/v1/a?x=1 -", "/v1/b -", `/v1/c ${basic}`, "/v1/a?x=1 -", "/v1/b -"]);
  });

  it("takes headers as a Headers object or pairs too", async () => {
    const url = await serve((req, _body, res) => res.end(`${req.headers.a},${req.headers.b}`));
    expect(await (await nodeFetch(url, { headers: new Headers({ a: "1", b: "2" }) })).text()).toBe("1,2");
    expect(
      await (
        await nodeFetch(new URL(url), {
          headers: [
            ["a", "3"],
            ["b", "4"],
          ],
        })
      ).text(),
    ).toBe("3,4");
  });

  it("hands an error status and its body to the client, and a 204 without a body", async () => {
    const url = await serve((req, _body, res) => {
      if (req.url === "/empty") {
        res.writeHead(204);
        res.end();
        return;
      }
      res.writeHead(429, { "retry-after": "2" });
      res.end('{"error":{"message":"slow down"}}');
    });
    const limited = await nodeFetch(`${url}/x`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("2");
    expect(await limited.text()).toContain("slow down");
    const empty = await nodeFetch(`${url}/empty`);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it("answers headers as fetch's Headers show them, read-only, and the same for the platform's fetch", async () => {
    const url = await serve((_req, _body, res) => {
      res.setHeader("X-Zeta", "z");
      res.setHeader("Set-Cookie", ["a=1", "b=2"]);
      res.setHeader("X-Many", ["one", "two"]);
      res.setHeader("Content-Type", "application/json");
      res.end("{}");
    });
    const ours = (await nodeFetch(url)).headers;
    const platform = (await fetch(url)).headers;
    const shown = (h: Headers) =>
      [...h].filter(([name]) => !["date", "connection", "keep-alive"].includes(name));
    expect(shown(ours)).toEqual(shown(platform));
    expect(shown(ours).map(([name]) => name)).toEqual([
      "content-length",
      "content-type",
      "set-cookie",
      "set-cookie",
      "x-many",
      "x-zeta",
    ]);
    expect(ours.get("X-MANY")).toBe("one, two");
    expect(ours.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(ours.has("x-zeta") && !ours.has("x-none")).toBe(true);
    const seen: string[] = [];
    ours.forEach((value, name) => {
      seen.push(`${name}=${value}`);
    });
    expect(seen).toContain("x-zeta=z");
    expect(() => ours.set("x-zeta", "changed")).toThrow(TypeError);
  });

  it("hands the body over once, as a stream or read at once, and a clone of it before that", async () => {
    const url = await serve((_req, _body, res) => res.end("é and more"));
    const streamed = await nodeFetch(url);
    const body = streamed.body!;
    expect(streamed.bodyUsed).toBe(false);
    const chunks: Uint8Array[] = [];
    for await (const chunk of body) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString("utf8")).toBe("é and more");
    expect(streamed.bodyUsed).toBe(true);
    await expect(streamed.text()).rejects.toThrow(TypeError);

    const read = await nodeFetch(url);
    const copy = read.clone();
    expect(await read.text()).toBe("é and more");
    expect(read.bodyUsed).toBe(true);
    await expect(read.arrayBuffer()).rejects.toThrow(TypeError);
    expect(() => read.clone()).toThrow(TypeError);
    expect(new TextDecoder().decode(await copy.arrayBuffer())).toBe("é and more");
    // A body asked for after it was read is a stream that fails, as fetch's would.
    await expect(read.body!.getReader().read()).rejects.toThrow(TypeError);
  });

  it("a body is a ReadableStream: read whole by a reader, or piped, or read at once, each only once", async () => {
    const url = await serve((req, _body, res) => res.end(req.url === "/empty" ? "" : "line one\nline two"));
    const byReader = await nodeFetch(url);
    expect(byReader.body).toBeInstanceOf(ReadableStream);
    const reader = byReader.body!.getReader();
    expect(byReader.body!.locked).toBe(true);
    expect(() => byReader.body!.getReader()).toThrow(TypeError);
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("line one\nline two");
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    await reader.cancel();
    reader.releaseLock();
    expect(byReader.body!.locked).toBe(false);
    expect(byReader.bodyUsed).toBe(true);
    await expect(byReader.json()).rejects.toThrow(TypeError);

    const piped = await nodeFetch(url);
    const text = piped.body!.pipeThrough(new TextDecoderStream());
    let all = "";
    for await (const part of text) all += part;
    expect(all).toBe("line one\nline two");
    expect(piped.bodyUsed).toBe(true);

    // Reading a body that is empty ends at once; cancelling an unread one leaves it unread.
    const empty = await nodeFetch(`${url}/empty`);
    expect(await empty.body!.getReader().read()).toEqual({ done: true, value: undefined });
    const untouched = await nodeFetch(url);
    await untouched.body!.cancel();
    expect(await untouched.text()).toBe("line one\nline two");
  });

  it("decodes a gzip-encoded body", async () => {
    const url = await serve((_req, _body, res) => {
      res.writeHead(200, { "content-encoding": "gzip" });
      res.end(gzipSync('{"ok":true}'));
    });
    const response = await nodeFetch(url);
    expect(response.headers.get("content-encoding")).toBeNull();
    expect(await response.json()).toEqual({ ok: true });
  });

  it("rejects with the abort reason when the signal aborts, and drops the connection", async () => {
    let closed!: () => void;
    const dropped = new Promise<void>((resolve) => (closed = resolve));
    const url = await serve((req) => req.socket.on("close", closed));
    const controller = new AbortController();
    const pending = nodeFetch(url, { method: "POST", body: "x", signal: controller.signal });
    setTimeout(() => controller.abort(new DOMException("stop", "AbortError")), 50);
    await expect(pending).rejects.toMatchObject({ name: "AbortError", message: "stop" });
    await dropped;
    const aborted = new AbortController();
    aborted.abort();
    await expect(nodeFetch(url, { signal: aborted.signal })).rejects.toMatchObject({ name: "AbortError" });
  });

  it("a server that cannot be reached is a TypeError 'fetch failed' with the cause, as from fetch", async () => {
    const url = await serve(() => {});
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    const error = await nodeFetch(url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ message: "fetch failed", cause: { code: "ECONNREFUSED" } });
  });

  it("speaks TLS to an https URL (node:https, loaded at the first such call)", async () => {
    // A bare TCP server: what arrives first tells whether the client opened a TLS handshake (a record of
    // type 22). It answers nothing and hangs up, which the client sees as a failed handshake.
    const first: number[] = [];
    const tcp = createTcpServer((socket) =>
      socket.once("data", (chunk: Buffer) => {
        first.push(chunk[0]!);
        socket.destroy();
      }),
    );
    await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
    try {
      const port = (tcp.address() as AddressInfo).port;
      const error = await nodeFetch(`https://127.0.0.1:${port}/v1/chat`, {
        method: "POST",
        body: "{}",
      }).catch((e: unknown) => e);
      expect(first).toEqual([0x16]);
      expect(error).toBeInstanceOf(TypeError);
      expect(error).toMatchObject({ message: "fetch failed" });
    } finally {
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    }
  });

  it("leaves a Request object, a non-text body and a proxy in the environment to the platform's fetch", async () => {
    const url = await serve((_req, _body, res) => res.end("ok"));
    const platform = vi.spyOn(globalThis, "fetch");
    await nodeFetch(new Request(url));
    await nodeFetch(url, { method: "POST", body: new Uint8Array([1, 2]) });
    expect(platform).toHaveBeenCalledTimes(2);
    vi.stubEnv("HTTPS_PROXY", "http://127.0.0.1:9");
    platform.mockResolvedValueOnce(new Response("proxied"));
    expect(await (await nodeFetch(url)).text()).toBe("proxied");
    expect(platform).toHaveBeenCalledTimes(3);
    vi.unstubAllEnvs();
    expect(await (await nodeFetch(url)).text()).toBe("ok");
    expect(platform).toHaveBeenCalledTimes(3);
  });
});
