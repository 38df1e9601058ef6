// The installed command with a model judge over HTTP, as a user runs it against OpenAI or a local server:
// `dramaturg eval --judge openai:… --judge-base-url …` against dramaturg/testing's fake OpenAI-compatible
// server, through a recording proxy. Checks every verdict is scored, and that each request carried the key
// (named with --judge-api-key-env: a local server otherwise gets a placeholder) and the AI SDK's user-agent
// (the command's bundle builds those headers with helpers of its own instead of the SDK's;
// scripts/bundle-cli.mjs). Run where dramaturg is installed.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { startFakeOpenAIServer } from "dramaturg/testing";

const KEY = "sk-consumer-check";
const fake = await startFakeOpenAIServer({ requireApiKey: KEY });
const seen = [];
let probes = 0;
const proxy = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", async () => {
    // Judge requests are POSTs; the command's one GET is its reachability probe of the server (no key needed).
    if (req.method === "POST")
      seen.push({ userAgent: req.headers["user-agent"] ?? "", keyed: req.headers.authorization === `Bearer ${KEY}` });
    else probes++;
    const answer = await fetch(`${fake.url}${req.url.replace(/^\/v1/, "")}`, {
      method: req.method,
      headers: { authorization: req.headers.authorization ?? "", "content-type": "application/json" },
      ...(req.method === "GET" || req.method === "HEAD" ? {} : { body: Buffer.concat(chunks) }),
    });
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
});
await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));

const ex = "node_modules/dramaturg/examples/ensemble";
const args = ["--no-install", "dramaturg", "eval", `${ex}/transcript.json`, "--propositions", `${ex}/propositions`,
  "--judge", "openai:fake-model", "--judge-base-url", `http://127.0.0.1:${proxy.address().port}/v1`,
  "--judge-api-key-env", "DG_CONSUMER_KEY", "--db", "memory://", "--no-cache", "--format", "json", "--out", "judged.json"];
const code = await new Promise((resolve) => {
  const child = spawn("npx", args, { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, DG_CONSUMER_KEY: KEY } });
  child.on("exit", resolve);
});
proxy.close();
await fake.close();

if (code !== 0) throw new Error(`dramaturg eval exited with ${code}`);
const result = JSON.parse(readFileSync("judged.json", "utf8"));
if (result.totals.errored !== 0 || result.totals.verdicts === 0)
  throw new Error(`expected every verdict scored: ${JSON.stringify(result.totals)}`);
const wrong = seen.filter((r) => !r.keyed || !/\bai-sdk-openai\/\S+/.test(r.userAgent));
if (probes !== 1) throw new Error(`expected one reachability probe before the judge requests, saw ${probes}`);
if (seen.length === 0 || wrong.length > 0)
  throw new Error(`requests without the key or the SDK's user-agent: ${JSON.stringify(wrong.slice(0, 3))}`);
console.log(`  ${result.totals.verdicts} verdicts over ${seen.length} requests; user-agent "${seen[0].userAgent}"`);
