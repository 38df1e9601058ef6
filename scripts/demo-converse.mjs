#!/usr/bin/env node
// `npm run demo:converse`: the demo conversation job end to end, offline. The reference agent runs on a fake
// model with scripted replies, the simulated user too, the scorer replays hand-written verdicts; then the
// same job against the agent that says the same things and writes nothing, for contrast.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

register();
const { startFakeOpenAIServer } = await import("../src/testing/index.ts");
const { startReferenceAgent } = await import("../examples/reference-agent/agent.ts");
const { agentModelResponder, loadConversationScript, simulatedUserResponder } = await import(
  "../examples/reference-agent/scripted-replies.ts"
);

const root = fileURLToPath(new URL("..", import.meta.url));
const example = (file) => relative(process.cwd(), join(root, "examples/reference-agent", file)) || ".";
const JOB = example("demo.job.yml");
/** The port the demo job names; another free one (and a copy of the job) when it is taken. */
const PORT = 8081;

const script = loadConversationScript(example("demo.script.json"));
const model = await startFakeOpenAIServer({ respond: agentModelResponder(script), recordRequests: false });
const user = await startFakeOpenAIServer({ respond: simulatedUserResponder(script), recordRequests: false });
let temp;

/** Starts the agent on the job's port, or on any port with the job copied to point at it. */
async function agentAndJob(failWrites) {
  try {
    return { agent: await startReferenceAgent({ port: PORT, modelUrl: model.url, failWrites }), job: JOB };
  } catch (error) {
    if (error?.code !== "EADDRINUSE") throw error;
    const agent = await startReferenceAgent({ modelUrl: model.url, failWrites });
    temp ??= mkdtempSync(join(tmpdir(), "dramaturg-demo-"));
    const job = join(temp, "demo.job.yml");
    writeFileSync(job, readFileSync(JOB, "utf8").replaceAll(`http://127.0.0.1:${PORT}`, agent.url));
    process.stderr.write(`(port ${PORT} is taken: the agent is on ${agent.url}, the job copied to ${job})\n`);
    return { agent, job };
  }
}

/** Runs `dramaturg converse` on the job; resolves with its exit code and what it printed. */
function converse(job, ...extra) {
  const args = [
    join(root, "bin/dramaturg.js"),
    "converse",
    job,
    "--user-model",
    "openai-compatible:demo-user",
    "--user-base-url",
    user.url,
    "--judge",
    `fixtures:${example("demo.judge-fixtures.json")}`,
    "--db",
    "memory://",
    "--no-progress",
    ...extra,
  ];
  const show = ["dramaturg", ...args.slice(1).map((a) => (a === user.url ? "<fake user model>" : a))];
  process.stdout.write(`$ ${show.join(" ")}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, out }));
  });
}

let exitCode = 0;
try {
  process.stdout.write("The reference agent (its model scripted) and a simulated user, both passes:\n\n");
  const doing = await agentAndJob(false);
  const first = await converse(doing.job);
  await doing.agent.close();
  process.stdout.write(first.out);
  if (first.code !== 0) throw new Error(`dramaturg converse exited with ${first.code}`);

  process.stdout.write(
    "\nThe same job against an agent that says the same things and writes nothing (--fail-writes):\n\n",
  );
  const saying = await agentAndJob(true);
  const second = await converse(saying.job, "--passes", "without", "--format", "json");
  // What the store really holds after the pass: what the failed assertions read.
  const store = await (await fetch(`${saying.agent.url}/state?user=alice`)).json();
  await saying.agent.close();
  if (second.code !== 0) throw new Error(`dramaturg converse exited with ${second.code}`);
  const pass = JSON.parse(second.out).passes[0];
  const c = pass.composite;
  process.stdout.write(
    `  without facts: composite ${c.score.toFixed(2)} = timing ${c.timing.toFixed(2)}, tasks ${c.task.toFixed(2)}, assertions ${c.assertions.toFixed(2)}\n`,
  );
  for (const a of pass.assertions)
    process.stdout.write(
      `    ${a.passed ? "PASS" : "FAIL"} ×${a.weight}  ${a.label}${a.failed ? `  [false: ${a.failed}]` : ""}  actual ${JSON.stringify(a.actual ?? null)}${a.expected !== undefined ? `, expected ${JSON.stringify(a.expected)}` : ""}\n`,
    );
  process.stdout.write(
    `  the agent's store after the pass (GET /state?user=alice): ${JSON.stringify(store)}\n`,
  );
} catch (error) {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  exitCode = 1;
} finally {
  await Promise.all([model.close(), user.close()]);
  if (temp) rmSync(temp, { recursive: true, force: true });
}
process.exitCode = exitCode;
