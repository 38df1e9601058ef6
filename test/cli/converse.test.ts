// `dramaturg converse` as a user runs it: an agent and a simulated user behind fake OpenAI-compatible
// servers (scripted replies), hand-written scorer verdicts, both passes, the composite and --min-score.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { cli, ROOT } from "./run-cli.ts";
import { expectSelfContained } from "./self-contained-report.ts";

const dir = useTempDir("dramaturg-converse-");
let agent: FakeOpenAIServer;
let user: FakeOpenAIServer;
/** An LLM scorer: the fake server's default responder answers the judge's schemas. */
let scorer: FakeOpenAIServer;
const FIXTURES = `fixtures:${ROOT}test/fixtures/conversations/verdicts.json`;
const lines = [
  "Please remind me tomorrow at 9.",
  "What is the capital of France?",
  "So Long, and Thanks for All the Fish",
];

beforeAll(async () => {
  agent = await startFakeOpenAIServer({
    respond: (request) => {
      const last = String(request.messages.at(-1)?.content ?? "");
      return /remind/i.test(last)
        ? "Done: reminder set for 9:00."
        : /capital/i.test(last)
          ? "Paris."
          : "Hello! How can I help?";
    },
  });
  let n = 0;
  user = await startFakeOpenAIServer({ respond: () => lines[n++ % lines.length]! });
  scorer = await startFakeOpenAIServer();
});
afterAll(async () => {
  await agent.close();
  await user.close();
  await scorer.close();
});

/** The seed example without its seeds, state or database assertions, as a job file. */
function jobFile(): string {
  const text = readFileSync(`${ROOT}test/fixtures/conversations/seed-example.yml`, "utf8");
  const job = text
    .replace(
      /\nseeds:[\s\S]*?\nassertions:[\s\S]*$/,
      "\nassertions:\n  - expression: 'conversation.turns.exists(t, t.content.contains(\"Paris\"))'\n",
    )
    .replace(/ {2}stateUrl: .*\n/, "");
  const file = join(dir(), "job.yml");
  writeFileSync(file, job);
  return file;
}

const args = (file: string, ...extra: string[]) => [
  "converse",
  file,
  "--target-url",
  agent.url,
  "--user-model",
  "openai-compatible:user",
  "--user-base-url",
  user.url,
  "--judge",
  FIXTURES,
  "--db",
  "memory://",
  ...extra,
];

describe("dramaturg converse", () => {
  it("runs both passes and prints the composite, the tasks and the assertions", async () => {
    const r = await cli(args(jobFile()));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /without facts: composite \d\.\d\d = timing 1\.00, tasks 0\.94, assertions 1\.00, penalty 0\.00/,
    );
    expect(r.stdout).toMatch(/with facts: composite/);
    expect(r.stdout).toMatch(/task 1\.00 {2}Ask what the capital of France is — Answered Paris\./);
    expect(r.stdout).toMatch(/PASS ×1 {2}conversation\.turns\.exists/);
    expect(r.stdout).toMatch(/ended: signoff/);
  });

  it("--min-score above the job's score exits 1; --format json gives the result document", async () => {
    const file = jobFile();
    const failing = await cli(args(file, "--min-score", "0.99"));
    expect(failing.code).toBe(1);
    const json = await cli(args(file, "--format", "json", "--passes", "without"));
    expect(json.code, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout);
    expect(result.format).toBe("dramaturg.conversation-result/v1");
    expect(result.passes.map((p: { pass: string }) => p.pass)).toEqual(["without_facts"]);
    // Task scores 8/9 and 9/9; timing 1 (the fake agent answers at once); the one assertion passed.
    expect(result.passes[0].composite.score).toBeCloseTo((1 + 2 * ((8 / 9 + 1) / 2) + 4 * 1) / 7, 12);
  });

  it("--format html writes the conversation's page as one self-contained file, and prints the table", async () => {
    const out = join(dir(), "conversation.html");
    const r = await cli(args(jobFile(), "--format", "html", "--out", out, "--passes", "with"));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/with facts: composite/);
    const report = readFileSync(out, "utf8");
    expect(report).toMatch(/<section class="report-page" id="page-conversations-[0-9a-f-]{36}">/);
    expect(report).toContain("Paris.");
    expectSelfContained(report);
  });

  it("a job file with a mistake exits 2 naming its file and line, before any job runs", async () => {
    const bad = join(dir(), "bad.yml");
    writeFileSync(bad, readFileSync(jobFile(), "utf8").replace("type: question", "type: riddle"));
    const r = await cli(args(jobFile(), bad).map((a) => a));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`${bad}:\\d+:\\d+: .*expected one of task, question`));
    expect(r.stdout).toBe("");
  });

  it("a run is stored: conversations lists it and show reprints it", async () => {
    const db = join(dir(), "store");
    const file = jobFile();
    const run = await cli([
      ...args(file, "--format", "json", "--passes", "with").filter((a) => a !== "memory://" && a !== "--db"),
      "--db",
      db,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const { evaluation_id: id, ...first } = JSON.parse(run.stdout);
    const listed = await cli(["conversations", "--db", db, "--format", "json"]);
    expect(JSON.parse(listed.stdout).conversations).toEqual([
      expect.objectContaining({
        id,
        status: "completed",
        job: file,
        passes: [{ pass: "with_facts", score: first.passes[0].composite.score }],
      }),
    ]);
    const shown = await cli(["show", id.slice(0, 8), "--db", db, "--format", "json"]);
    expect(shown.code, shown.stderr).toBe(0);
    const { evaluation_id: again, ...reprinted } = JSON.parse(shown.stdout);
    expect(again).toBe(id);
    expect(reprinted).toEqual(first);
  });

  describe("the simulated user, checked", () => {
    /** The hand-written verdicts with the user found stating a withheld fact (written here, not by a model). */
    function leakVerdicts(): string {
      const fixtures = JSON.parse(readFileSync(`${ROOT}test/fixtures/conversations/verdicts.json`, "utf8"));
      for (const v of fixtures.verdicts)
        if (v.proposition_id === "keeps-withheld-facts") {
          v.score = 1;
          v.reasoning = "The user names its timezone, which it was never told.";
        }
      const file = join(dir(), "leak-verdicts.json");
      writeFileSync(file, JSON.stringify(fixtures));
      return `fixtures:${file}`;
    }
    const judged = (file: string, judge: string, ...extra: string[]) => {
      const list = args(file, "--passes", "without", ...extra);
      list[list.indexOf("--judge") + 1] = judge;
      return list;
    };

    it("a simulator fault is reported apart; --fail-on-simulator-fault exits 1 on it, 0 on a clean user", async () => {
      const file = jobFile();
      const leak = leakVerdicts();
      const reported = await cli(judged(file, leak));
      expect(reported.code, reported.stderr).toBe(0);
      expect(reported.stdout).toContain(
        "SIMULATOR FAULT: the simulated user broke its brief — keeps-withheld-facts 1/9: The user names its timezone",
      );
      expect(reported.stdout).toMatch(/score — \(left out: without facts, a simulator fault\)/);
      expect(reported.stderr).toMatch(/simulator fault \(the simulated user broke its brief/);
      const failing = await cli(judged(file, leak, "--fail-on-simulator-fault"));
      expect(failing.code).toBe(1);
      const cleanUser = await cli(judged(file, FIXTURES, "--fail-on-simulator-fault"));
      expect(cleanUser.code, cleanUser.stderr).toBe(0);
      expect(cleanUser.stdout).toContain("the simulated user kept to its brief");
    });

    it("--no-simulator-check skips it; with --fail-on-simulator-fault, or a bad propositions file, it is bad input", async () => {
      const file = jobFile();
      const off = await cli(judged(file, leakVerdicts(), "--no-simulator-check", "--format", "json"));
      expect(off.code, off.stderr).toBe(0);
      const result = JSON.parse(off.stdout);
      expect(result.simulated_user).toBeUndefined();
      expect(result.passes[0].simulator_fault).toBeUndefined();
      const both = await cli(judged(file, FIXTURES, "--no-simulator-check", "--fail-on-simulator-fault"));
      expect(both.code).toBe(2);
      expect(both.stderr).toMatch(/--fail-on-simulator-fault needs the simulator check/);
      const bad = join(dir(), "bad-user.yaml");
      writeFileSync(bad, "dimension: simulated_user\npropositions:\n  - id: x\n    claim: ''\n");
      const badFile = await cli(judged(file, FIXTURES, "--simulator-propositions", bad));
      expect(badFile.code).toBe(2);
      expect(badFile.stderr).toContain(`${bad}:4:`);
      expect(badFile.stdout).toBe("");
    });
  });

  it("runs several jobs at once and reports them in the order given", async () => {
    const first = jobFile();
    const second = join(dir(), "second.yml");
    writeFileSync(second, readFileSync(first, "utf8"));
    const r = await cli(args(first, second, "--jobs", "2", "--passes", "without", "--format", "json"));
    expect(r.code, r.stderr).toBe(0);
    const { jobs } = JSON.parse(r.stdout);
    expect(jobs.map((j: { job: string }) => j.job)).toEqual([first, second]);
    for (const j of jobs) expect(j.passes[0].transcript.ended).toBe("signoff");
  });

  describe("--jobs", () => {
    /** Two copies of the job, run against an agent slow enough that jobs under way at once overlap there. */
    async function twoJobsAgainstSlowAgent(...extra: string[]) {
      const slow = await startFakeOpenAIServer({ latencyMs: 40, respond: () => "Paris." });
      try {
        const first = jobFile();
        const second = join(dir(), "slow-second.yml");
        writeFileSync(second, readFileSync(first, "utf8"));
        const list = args(first, second, "--passes", "without", "--format", "json", ...extra);
        list[list.indexOf("--target-url") + 1] = slow.url;
        const r = await cli(list);
        return { ...r, agentInFlight: slow.stats.maxInFlight };
      } finally {
        await slow.close();
      }
    }

    it("runs one job at a time by default, and --jobs N jobs at once", async () => {
      const one = await twoJobsAgainstSlowAgent();
      expect(one.code, one.stderr).toBe(0);
      expect(one.agentInFlight).toBe(1);
      const two = await twoJobsAgainstSlowAgent("--jobs", "2");
      expect(two.code, two.stderr).toBe(0);
      expect(two.agentInFlight).toBe(2);
      expect(two.stderr).not.toMatch(/deprecated/);
      expect(JSON.parse(two.stdout)).toMatchObject({ jobs: [{ job: expect.any(String) }, {}] });
    });

    it("--concurrency, its old name, still sets the jobs at once, hidden from help, with one line saying to use --jobs", async () => {
      const r = await twoJobsAgainstSlowAgent("--concurrency", "2");
      expect(r.code, r.stderr).toBe(0);
      expect(r.agentInFlight).toBe(2);
      expect(r.stderr.split("\n").filter((line) => /deprecated/.test(line))).toEqual([
        "dramaturg: converse --concurrency is deprecated and will be removed: use --jobs (jobs run at once)",
      ]);
      const help = await cli(["converse", "--help"]);
      expect(help.stdout).toMatch(/--jobs <n> +jobs run at once \(default: "1"\)/);
      expect(help.stdout).not.toMatch(/--concurrency/);
    });

    it("a --jobs that is not a whole number from 1 to 64 is bad input (exit 2)", async () => {
      const r = await cli(args(jobFile(), "--jobs", "0"));
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--jobs must be a whole number from 1 to 64, got "0"/);
    });
  });

  it("job files given as a quoted glob run each job; a name a typo away is answered with the nearest", async () => {
    const jobs = join(dir(), "globbed");
    mkdirSync(jobs);
    for (const name of ["a.yml", "b.yml"]) writeFileSync(join(jobs, name), readFileSync(jobFile(), "utf8"));
    const r = await cli(args(join(jobs, "*.yml"), "--passes", "without", "--format", "json"));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).jobs.map((j: { job: string }) => j.job)).toEqual([
      join(jobs, "a.yml"),
      join(jobs, "b.yml"),
    ]);
    const typo = await cli(args(join(jobs, "c.yml")));
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/c\.yml: no such conversation job file; did you mean .*a\.yml\?/);
  });

  it("--record then --replay gives the same JSON, and the replay calls no model", async () => {
    const file = jobFile();
    const cassettes = join(dir(), "cassettes");
    const llm = ["--judge", "openai-compatible:judge", "--judge-base-url", scorer.url, "--format", "json"];
    const recorded = await cli([...args(file, "--record", cassettes), ...llm]);
    expect(recorded.code, recorded.stderr).toBe(0);
    const calls = { user: user.stats.calls, scorer: scorer.stats.calls };
    const withoutUser = args(file, "--replay", cassettes).filter(
      (a, i, all) => a !== "--user-model" && all[i - 1] !== "--user-model",
    );
    const replayed = await cli([...withoutUser, ...llm]);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect({ user: user.stats.calls, scorer: scorer.stats.calls }).toEqual(calls);
    expect(sameRun(JSON.parse(replayed.stdout))).toEqual(sameRun(JSON.parse(recorded.stdout)));
  });

  it("a replay whose job changed since the recording exits 3 naming the cassette and the key", async () => {
    const file = jobFile();
    const cassettes = join(dir(), "changed");
    expect((await cli(args(file, "--record", cassettes, "--passes", "without"))).code).toBe(0);
    writeFileSync(file, readFileSync(file, "utf8").replace(/voice: .*/, "voice: Terse, all lower case."));
    const r = await cli(args(file, "--replay", cassettes, "--passes", "without"));
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(join(cassettes, "job.cassette.json"));
    expect(r.stderr).toMatch(/user call with key [0-9a-f]{16}/);
  });

  it("a job that cannot complete is reported with its error while the other jobs finish (exit 3)", async () => {
    const good = jobFile();
    const bad = join(dir(), "bad.yml");
    writeFileSync(bad, readFileSync(good, "utf8"));
    const cassettes = join(dir(), "both");
    const both = [good, bad];
    expect((await cli([...args(good, "--record", cassettes, "--passes", "without"), bad])).code).toBe(0);
    writeFileSync(bad, readFileSync(bad, "utf8").replace(/voice: .*/, "voice: Terse, all lower case."));
    const r = await cli([
      ...args(both[0]!, "--replay", cassettes, "--passes", "without", "--jobs", "2", "--format", "json"),
      both[1]!,
    ]);
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout);
    expect(out.jobs.map((j: { job: string }) => j.job)).toEqual([good]);
    expect(out.jobs[0].passes[0].transcript.ended).toBe("signoff");
    expect(out.failed).toEqual([
      {
        job: bad,
        error: { name: "CassetteMissError", message: expect.stringMatching(/user call with key/) },
      },
    ]);
    expect(r.stderr).toContain(`${bad} could not complete`);
  });

  it("--replay from a folder without the job's cassette exits 2 naming the file", async () => {
    const r = await cli(args(jobFile(), "--replay", join(dir(), "empty")));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/job\.cassette\.json: cannot read cassette/);
  });

  it("--trials 3 --min-score prints each trial and pass^k, and exits 1 when trials are under", async () => {
    const file = jobFile();
    const failing = await cli(args(file, "--trials", "3", "--min-score", "0.99", "--passes", "without"));
    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(/: 3 trials, scores \d\.\d\d \d\.\d\d \d\.\d\d/);
    expect(failing.stdout).toMatch(
      /pass\^k \(a trial passes at score ≥ 0\.99\): k=1 0\.00, k=2 0\.00, k=3 0\.00/,
    );
    expect(failing.stdout).toMatch(/trial 3:\n {2}.*: score \d\.\d\d\n {4}without facts: composite/);
    const passing = await cli(args(file, "--trials", "3", "--min-score", "0.5", "--passes", "without"));
    expect(passing.code, passing.stderr).toBe(0);
    expect(passing.stdout).toMatch(/k=1 1\.00, k=2 1\.00, k=3 1\.00/);
  });

  it("--trials with --format json gives every trial's result, its score, and pass^k", async () => {
    const r = await cli(
      args(jobFile(), "--trials", "2", "--min-score", "0.5", "--passes", "with", "--format", "json"),
    );
    expect(r.code, r.stderr).toBe(0);
    const trials = JSON.parse(r.stdout);
    expect(trials.format).toBe("dramaturg.conversation-trials/v1");
    expect(trials.trials).toHaveLength(2);
    expect(trials.scores).toEqual(
      trials.trials.map((t: { passes: { composite: { score: number } }[] }) => t.passes[0]!.composite.score),
    );
    expect(trials.pass_k).toEqual({ "1": 1, "2": 1 });
  });

  it("--format markdown puts the passes side by side: composite, tasks, assertions with actual values", async () => {
    const r = await cli(args(jobFile(), "--format", "markdown"));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^### .*job\.yml — score \d\.\d\d/m);
    expect(r.stdout).toMatch(/^\| +\| without facts \| with facts \|$/m);
    expect(r.stdout).toMatch(/^\| \*\*composite\*\* \| \*\*\d\.\d\d\*\* \| \*\*\d\.\d\d\*\* \|$/m);
    expect(r.stdout).toMatch(/^\| task: Ask what the capital of France is \| 1\.00 \| 1\.00 \|$/m);
    expect(r.stdout).toMatch(
      /^\| assertion ×1: conversation\.turns\.exists.* \| ✅ pass \(actual true\) \|/m,
    );
  });
});

describe("dramaturg converse against an agent that fails", () => {
  /** Answers 500 to every request. */
  let dead: FakeOpenAIServer;
  beforeAll(async () => {
    dead = await startFakeOpenAIServer({ faults: () => ({ type: "500" }) });
  });
  afterAll(async () => {
    await dead.close();
  });

  /** Runs against an agent that answers its first request (the first pass's greeting), then 500 to every other. */
  async function faltering(...extra: string[]) {
    const server = await startFakeOpenAIServer({
      respond: () => "Hello! How can I help?",
      faults: (call) => (call === 0 ? undefined : { type: "500" }),
    });
    try {
      return await cli(against(server.url, ...extra));
    } finally {
      await server.close();
    }
  }

  /** The job with no retries (a failed request fails the pass at once), run against `target`. */
  function against(target: string, ...extra: string[]): string[] {
    const file = jobFile();
    writeFileSync(file, readFileSync(file, "utf8").replace(/^target:\n/m, "target:\n  retries: 0\n"));
    return args(file, ...extra).map((a) => (a === agent.url ? target : a));
  }

  it("an agent that answers 500 to every request: no score, exit 3 naming the agent's URL and its error", async () => {
    const r = await cli(against(dead.url));
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      new RegExp(
        `job\\.yml could not be scored: the agent at ${dead.url}/chat/completions failed 1 attempt\\(s\\); last: HTTP 500`,
      ),
    );
    expect(r.stdout).toMatch(/without facts: composite — /);
  });

  it("a dead agent exits 3 with --min-score too, and the result document says why it has no score", async () => {
    const r = await cli(against(dead.url, "--min-score", "0.5", "--format", "json"));
    expect(r.code).toBe(3);
    const result = JSON.parse(r.stdout);
    expect(result.passes.map((p: { composite: { score: unknown } }) => p.composite.score)).toEqual([
      null,
      null,
    ]);
    expect(result.passes[1].unscored).toMatch(/^the agent at .* failed 1 attempt\(s\); last: HTTP 500/);
    expect(result.unscored).toBe(result.passes[0].unscored);
  });

  it("an agent on a closed port: exit 3, it cannot be reached", async () => {
    const closed = await closedPort();
    const r = await cli(against(`http://127.0.0.1:${closed}/v1`, "--passes", "without"));
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      new RegExp(
        `could not be scored: the agent at http://127\\.0\\.0\\.1:${closed}/v1/chat/completions .*ECONNREFUSED`,
      ),
    );
  });

  it("a pass scored and one not: the exit follows the thresholds, and the pass without a score is named", async () => {
    const r = await faltering("--format", "json");
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.passes[0].composite.score).toEqual(expect.any(Number));
    expect(result.passes[0].unscored).toBeUndefined();
    expect(result.passes[1].composite.score).toBeNull();
    expect(result.unscored).toBeUndefined();
    expect(r.stderr).toMatch(/job\.yml with facts: no score: the agent at .* last: HTTP 500/);
    // The job's score needs every pass: under any threshold it fails.
    expect((await faltering("--min-score", "0")).code).toBe(1);
  });
});

/** A port of 127.0.0.1 nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A result without what differs between two runs against a live agent: reply times and the run's id. */
function sameRun(result: {
  evaluation_id?: string;
  passes: { transcript: { turns: object[]; latencies: number[] } }[];
}) {
  const { evaluation_id: _id, ...rest } = result;
  return {
    ...rest,
    passes: rest.passes.map((p) => ({
      ...p,
      transcript: {
        ...p.transcript,
        latencies: p.transcript.latencies.length,
        turns: p.transcript.turns.map((t) => ({ ...t, latency_ms: undefined })),
      },
    })),
  };
}
