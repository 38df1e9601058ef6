// The floor of the peer bench's 200 ms rows: a client that does nothing but send one of the command's own
// judge requests (node:http, keep-alive, J in flight) to the peer bench's fake judge, and how long N calls take
// from the first request to the last answer, against the ideal N × latency / J. No client can do better on
// that judge; design notes, "The floor of a 200 ms run". Needs the built command (npm run build) and
// ../shared/peerbench/. Usage: node bench/peer-floor.mjs [N=5000] [LATENCY_MS=200] [J=16]
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const [N = 5000, LATENCY = 200, J = 16] = process.argv.slice(2).map(Number);
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const PEERBENCH = join(ROOT, "..", "shared", "peerbench");
const BIN = join(ROOT, "dist", "bin", "dramaturg.cjs");
for (const needed of [BIN, join(PEERBENCH, "fake-openai.mjs")])
  if (!existsSync(needed))
    throw new Error(`peer-floor: ${needed} is missing (npm run build; ../shared/peerbench)`);

const run = (command, args, env = {}) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { stdio: "ignore", env: { ...process.env, ...env } });
    child.on("exit", resolve);
  });

// 1. One real request of the command, captured by a server that refuses it (the command then stops).
const work = await mkdtemp(join(tmpdir(), "peer-floor-"));
let body;
const capture = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    body ??= Buffer.concat(chunks);
    res.writeHead(400, { "content-type": "application/json" });
    res.end('{"error":{"message":"captured"}}');
  });
});
await new Promise((resolve) => capture.listen(0, "127.0.0.1", resolve));
await run(process.execPath, [join(PEERBENCH, "make-dramaturg-workload.mjs"), "2", join(work, "w")]);
await run(
  BIN,
  [
    "eval",
    join(work, "w", "transcript.json"),
    "--propositions",
    join(work, "w", "propositions"),
    "--dimensions",
    "adherence",
    "--judge",
    "openai:fake-model",
    "--judge-base-url",
    `http://127.0.0.1:${capture.address().port}/v1`,
    "--no-cache",
    "--db",
    "memory://",
  ],
  { OPENAI_API_KEY: "not-a-real-key" },
);
capture.close();
if (!body) throw new Error("peer-floor: the command sent no request");

// 2. The peer bench's fake judge, and the bare client against it.
const portFile = join(work, "port");
const judge = spawn(
  process.execPath,
  [
    join(PEERBENCH, "fake-openai.mjs"),
    "--port",
    "0",
    "--latency-ms",
    String(LATENCY),
    "--max-lifetime-s",
    "1800",
    "--port-file",
    portFile,
  ],
  { stdio: "ignore" },
);
let port;
for (let i = 0; i < 50 && !port; i++) {
  await new Promise((resolve) => setTimeout(resolve, 100));
  port = Number(await readFile(portFile, "utf8").catch(() => "")) || undefined;
}
const agent = new http.Agent({ keepAlive: true });
const call = () =>
  new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: "/v1/chat/completions",
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": body.length,
          authorization: "Bearer x",
        },
      },
      (res) => res.resume().on("end", resolve),
    );
    req.on("error", reject);
    req.end(body);
  });
let next = 0;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: J }, async () => {
    while (next++ < N) await call();
  }),
);
const wall = (performance.now() - t0) / 1000;
const ideal = (N * LATENCY) / 1000 / J;
agent.destroy();
judge.kill();
await rm(work, { recursive: true, force: true });
console.log(
  `peer-floor: ${N} calls, ${J} in flight, ${LATENCY} ms judge: ${wall.toFixed(2)} s from the first request to the last answer; ideal ${ideal.toFixed(2)} s; ${(wall / ideal).toFixed(4)}×`,
);
