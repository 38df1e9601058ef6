// `dramaturg converse` on many jobs at once (issue 20): N jobs of 8 exchanges against the reference agent,
// whose model is the fake server at a fixed latency, `--jobs` jobs at a time, the simulated user on
// a fake server without latency and the scorer on hand-written fixtures. Measured: the process's wall time
// against the critical path, and each turn's time in the report against the time the agent really took.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startReferenceAgent } from "../examples/reference-agent/agent.ts";
import {
  agentModelResponder,
  type ConversationScript,
  simulatedUserResponder,
} from "../examples/reference-agent/scripted-replies.ts";
import type { ConversationResult } from "../src/conversations/index.ts";
import { startFakeOpenAIServer } from "../src/testing/index.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const SIGNOFF = "So Long, and Thanks for All the Fish";

/** Eight exchanges: the greeting and seven requests, five of them a tool call (two model calls each). */
const SCRIPT: ConversationScript = {
  user: [
    "Remind me to call the dentist tomorrow at 9am.",
    "Please note that the team offsite moved to Friday.",
    "What's the capital of Portugal?",
    "Remind me to water the plants on Sunday.",
    "My email address changed to alice@example.com, please update it.",
    "Note that the budget review is on Monday.",
    "Thanks, that is everything.",
    SIGNOFF,
  ],
  agent: [
    {
      when: "dentist",
      call: { name: "create_reminder", arguments: { text: "Call the dentist", due: "tomorrow 09:00" } },
      reply: "Done: a reminder to call the dentist tomorrow at 09:00.",
    },
    {
      when: "plants",
      call: { name: "create_reminder", arguments: { text: "Water the plants", due: "Sunday" } },
      reply: "Done: a reminder to water the plants on Sunday.",
    },
    {
      when: "offsite|budget",
      call: { name: "add_note", arguments: { text: "Noted from the conversation." } },
      reply: "Noted.",
    },
    {
      when: "email",
      call: { name: "update_customer", arguments: { email: "alice@example.com" } },
      reply: "Your email is now alice@example.com.",
    },
    { when: "capital", reply: "Lisbon." },
  ],
  fallback: "Hello! What can I do for you?",
};

const TASKS = ["create two reminders", "keep two notes", "update the email address"];

function jobYaml(agentUrl: string, user: string): string {
  return `evaluator:
  name: Alice
  voice: "Short and friendly"
  signoff: "${SIGNOFF}"
target:
  user: ${user}
  chatbot: reference-agent
  url: ${agentUrl}/v1
  stateUrl: ${agentUrl}/state?user=${user}
aspirationalAverage: 3000
maxTurns: 8
greetings: [Hello]
tasks:
${TASKS.map((t) => `  - type: task\n    task: "Ask the assistant to ${t}"\n    acceptanceCriteria: "It is done"`).join("\n")}
setup:
  - http: ${agentUrl}/reset?user=${user}
assertions:
  - expression: "size(objectContext.reminders) == 2 && size(objectContext.notes) == 2"
  - expression: 'objectContext.customer.email == "alice@example.com"'
`;
}

const FIXTURES = {
  format: "dramaturg.judge-fixtures/v1",
  note: "HAND-WRITTEN verdicts for the converse benchmark, not the output of any model.",
  verdicts: ["tone", ...TASKS.map((_, i) => `task-${i + 1}`)].map((id) => ({
    dimension: "conversation",
    proposition_id: id,
    score: 9,
    reasoning: "Done.",
  })),
};

export interface ConverseFigures {
  jobs: number;
  concurrency: number;
  latency_ms: number;
  exit_code: number | null;
  /** Jobs that ended on the signoff after 8 exchanges with every assertion passed. */
  complete_jobs: number;
  model_calls_per_job: number;
  /** ceil(jobs / concurrency) waves × the model calls of one job × the model's latency. */
  critical_path_ms: number;
  /** The same with the agent's own time for the mean job (its model calls and its own work), not the latency alone. */
  agent_path_ms: number;
  wall_ms: number;
  /** From spawning the command to the agent model's first request. */
  startup_ms: number;
  turns: number;
  /** Mean per-turn time in the report, and the agent's own time for the same requests. */
  report_turn_ms: number;
  agent_turn_ms: number;
  /** The model's share of that: the agent's model calls × the latency, per turn. */
  model_turn_ms: number;
  /** Per turn, |report − agent| / agent: the mean, the 95th percentile and the worst. */
  mean_turn_deviation: number;
  p95_turn_deviation: number;
  max_turn_deviation: number;
}

export async function benchConverse({
  jobs = 50,
  concurrency = 10,
  latencyMs = 300,
}: {
  jobs?: number;
  concurrency?: number;
  latencyMs?: number;
} = {}): Promise<ConverseFigures> {
  const dir = mkdtempSync(join(tmpdir(), "dramaturg-converse-bench-"));
  const model = await startFakeOpenAIServer({
    latencyMs,
    respond: agentModelResponder(SCRIPT),
    recordRequests: false,
  });
  const user = await startFakeOpenAIServer({
    respond: simulatedUserResponder(SCRIPT),
    recordRequests: false,
  });
  const agent = await startReferenceAgent({ modelUrl: model.url });
  try {
    const files = Array.from({ length: jobs }, (_, i) => {
      const file = join(dir, `job-${i}.yml`);
      writeFileSync(file, jobYaml(agent.url, `bench-${i}`));
      return file;
    });
    const fixtures = join(dir, "verdicts.json");
    writeFileSync(fixtures, JSON.stringify(FIXTURES));
    const out = join(dir, "result.json");
    const started = Date.now();
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [
          join(ROOT, "bin/dramaturg.js"),
          "converse",
          ...files,
          "--jobs",
          String(concurrency),
          "--passes",
          "without",
          "--user-model",
          "openai-compatible:bench-user",
          "--user-base-url",
          user.url,
          "--judge",
          `fixtures:${fixtures}`,
          "--db",
          "memory://",
          "--no-progress",
          "--format",
          "json",
          "--out",
          out,
        ],
        { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] },
      );
      child.on("error", reject);
      child.on("exit", resolve);
    });
    const wall = Date.now() - started;
    const results = (JSON.parse(readFileSync(out, "utf8")) as { jobs: ConversationResult[] }).jobs;

    // The agent's own time per request, per user in order: each job's requests are sequential.
    const byUser = new Map<string, { ms: number; modelCalls: number }[]>();
    for (const h of agent.handled) {
      let list = byUser.get(h.user);
      if (!list) byUser.set(h.user, (list = []));
      list.push(h);
    }
    const deviations: number[] = [];
    let reportSum = 0;
    let agentSum = 0;
    let modelCalls = 0;
    let complete = 0;
    results.forEach((result, i) => {
      const pass = result.passes[0]!;
      const own = byUser.get(`bench-${i}`) ?? [];
      if (
        pass.transcript.ended === "signoff" &&
        pass.transcript.latencies.length === 8 &&
        pass.assertions.every((a) => a.passed)
      )
        complete++;
      pass.transcript.latencies.forEach((reported, t) => {
        const actual = own[t]?.ms ?? Number.NaN;
        modelCalls += own[t]?.modelCalls ?? 0;
        reportSum += reported;
        agentSum += actual;
        deviations.push(Math.abs(reported - actual) / actual);
      });
    });
    const callsPerJob = Math.max(
      ...[...byUser.values()].map((list) => list.reduce((sum, h) => sum + h.modelCalls, 0)),
    );
    const waves = Math.ceil(jobs / concurrency);
    const critical = waves * callsPerJob * latencyMs;
    // The mean job: the slowest one each wave would count every hiccup of a loaded machine five times.
    const agentPerJob = agent.handled.reduce((sum, h) => sum + h.ms, 0) / byUser.size;
    const sorted = deviations.toSorted((a, b) => a - b);
    return {
      jobs,
      concurrency,
      latency_ms: latencyMs,
      exit_code: exitCode,
      complete_jobs: complete,
      model_calls_per_job: callsPerJob,
      critical_path_ms: critical,
      agent_path_ms: waves * agentPerJob,
      wall_ms: wall,
      startup_ms: (model.stats.firstCallAt ?? Number.NaN) - started,
      turns: deviations.length,
      report_turn_ms: reportSum / deviations.length,
      agent_turn_ms: agentSum / deviations.length,
      model_turn_ms: (modelCalls * latencyMs) / deviations.length,
      mean_turn_deviation: deviations.reduce((a, b) => a + b, 0) / deviations.length,
      p95_turn_deviation: sorted[Math.floor(0.95 * (sorted.length - 1))]!,
      max_turn_deviation: sorted.at(-1)!,
    };
  } finally {
    await Promise.all([agent.close(), model.close(), user.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
}
