// Langfuse traces, LangSmith runs and Inspect logs read as sessions. The fixtures (test/fixtures/inspect,
// langsmith, langfuse; each README says where a file comes from and the figures it gives): two real Inspect logs
// from inspect_ai's tests (a .eval archive and a JSON log), a real LangSmith ingest batch from langsmith-sdk's
// tests, and HAND-WRITTEN files for a LangSmith runs export and a Langfuse trace export (no public file of
// either with tool calls was found). The multi-epoch log below is built in this file from the real JSON log.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/index.ts";
import { inspectScoreValue, readInspectArchive } from "../../src/sessions/importers/inspect.ts";
import { readZipArchive } from "../../src/sessions/importers/zip-archive.ts";
import { analyzeSession } from "../../src/sessions/index.ts";
import { cli } from "../cli/run-cli.ts";
import { useTempDir } from "../temp-dir.ts";

const INSPECT_EVAL = "test/fixtures/inspect/guess-number.eval";
const INSPECT_JSON = "test/fixtures/inspect/popularity.json";
const LANGSMITH_BATCH = "test/fixtures/langsmith/wrap-openai-default.json";
const LANGSMITH_RUNS = "test/fixtures/langsmith/hand-written-weather-runs.json";
const LANGFUSE = "test/fixtures/langfuse/hand-written-support.json";

const dir = useTempDir("dramaturg-imported-traces-");
const findings = (a: { tool_validation: { type: string }[] }) => a.tool_validation.map((f) => f.type);

/** A zip archive of stored (uncompressed) entries, the other method the reader takes. */
function storedZip(files: Record<string, string>): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const data = Buffer.from(text);
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(data.length, 24);
    entry.writeUInt16LE(nameBytes.length, 28);
    entry.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    central.push(entry, nameBytes);
    offset += 30 + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

describe("Inspect logs", () => {
  it("reads a real .eval archive: one sample, its five bash calls checked against the tools its model events offered", async () => {
    const result = await analyzeSession(INSPECT_EVAL);
    expect(result.sources[0]).toMatchObject({ from: "inspect", sessions: 1 });
    const [a] = result.analyses;
    expect(a!.session_id).toBe("sample-0-epoch-1");
    expect(a!.tool_calls).toEqual({ total: 5, with_findings: 0, unchecked: 0 });
    // Its score (closeness_log 0.0) is below Inspect's "C": a failure, pass^1 0.
    expect(a!.task_completion).toBe(false);
    expect(result.pass_k).toEqual({ tasks: 1, runs_per_task: 1, pass_k: { 1: 0 } });
  });

  it("reads a real JSON log: three samples scored C, C, I give pass^1 2/3; --success-reward 0 passes all", async () => {
    const result = await analyzeSession(INSPECT_JSON);
    expect(result.analyses.map((a) => [a.session_id, a.task_completion])).toEqual([
      ["sample-1-epoch-1", true],
      ["sample-2-epoch-1", true],
      ["sample-3-epoch-1", false],
    ]);
    expect(result.pass_k!.pass_k[1]).toBeCloseTo(2 / 3, 12);
    expect(result.sources[0]!.notes).toContain(
      'the log\'s status is "cancelled": it may not hold every sample',
    );
    const lenient = await analyzeSession(INSPECT_JSON, { successReward: 0 });
    expect(lenient.pass_k!.pass_k[1]).toBe(1);
  });

  it("takes pass^k over epochs: each sample's epochs are the runs of its task", async () => {
    // Built here from the real log: its three samples, each in three epochs, scored by hand.
    const log = JSON.parse(readFileSync(INSPECT_JSON, "utf8"));
    const scores: Record<string, string[]> = { 1: ["C", "C", "C"], 2: ["C", "I", "C"], 3: ["I", "P", "I"] };
    log.samples = log.samples.flatMap((s: { id: number }) =>
      scores[s.id]!.map((value, e) => ({ ...s, epoch: e + 1, scores: { match: { value } } })),
    );
    const file = join(dir(), "epochs.json");
    writeFileSync(file, JSON.stringify(log));
    const result = await analyzeSession(file);
    expect(result.pass_k!.tasks).toBe(3);
    expect(result.pass_k!.runs_per_task).toBe(3);
    // pass^k = mean over tasks of C(c, k) / C(3, k): successes 3, 2, 0.
    expect(result.pass_k!.pass_k[1]).toBeCloseTo((1 + 2 / 3 + 0) / 3, 12);
    expect(result.pass_k!.pass_k[2]).toBeCloseTo((1 + 1 / 3 + 0) / 3, 12);
    expect(result.pass_k!.pass_k[3]).toBeCloseTo(1 / 3, 12);
    // A partial credit ("P", 0.5) passes at --success-reward 0.5.
    const half = await analyzeSession(file, { successReward: 0.5 });
    expect(half.pass_k!.pass_k[1]).toBeCloseTo((1 + 2 / 3 + 1 / 3) / 3, 12);
  });

  it("reads scores as Inspect's value_to_float does", () => {
    expect(
      ["C", "P", "I", "N", "yes", "False", true, 0.25, "0.75", "maybe", { a: 1 }].map(inspectScoreValue),
    ).toEqual([1, 0.5, 0, 0, 1, 0, 1, 0.25, 0.75, 0, undefined]);
  });

  it("reads a .eval archive into the log its JSON form would be, samples in id and epoch order", () => {
    const bytes = storedZip({
      "header.json": JSON.stringify({ version: 2, eval: { task: "t" } }),
      "samples/10_epoch_1.json": JSON.stringify({ id: 10, epoch: 1 }),
      "samples/2_epoch_1.json": JSON.stringify({ id: 2, epoch: 1 }),
    });
    expect(readInspectArchive(bytes, "x.eval")).toEqual({
      version: 2,
      eval: { task: "t" },
      samples: [
        { id: 2, epoch: 1 },
        { id: 10, epoch: 1 },
      ],
    });
    expect([...readZipArchive(readFileSync(INSPECT_EVAL), INSPECT_EVAL).keys()]).toContain("header.json");
  });

  it("refuses a cut archive and a sample without messages, naming the file and place (exit 2, nothing printed)", async () => {
    const cut = join(dir(), "cut.eval");
    const bytes = readFileSync(INSPECT_EVAL);
    writeFileSync(cut, bytes.subarray(0, bytes.length - 200));
    const run = await cli(["session", "analyze", cut, "--db", "memory://"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${cut}: not a readable zip archive`);
    expect(run.stdout).toBe("");
    const log = JSON.parse(readFileSync(INSPECT_JSON, "utf8"));
    delete log.samples[1].messages;
    const file = join(dir(), "broken.json");
    writeFileSync(file, JSON.stringify(log));
    const broken = await cli(["session", "analyze", file, "--db", "memory://"]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain(`${file}:samples[1].messages`);
    expect(() => readZipArchive(Buffer.from("PK\u0003\u0004nothing"), "n.eval")).toThrow(InputError);
  });
});

describe("LangSmith runs", () => {
  it("reads a real ingest batch (post, then patch by dotted order): one model call, its words, no tools", async () => {
    const result = await analyzeSession(LANGSMITH_BATCH);
    expect(result.sources[0]).toMatchObject({ from: "langsmith", sessions: 1 });
    const [session] = (await import("../../src/sessions/analyze.ts")).readSessionFile(
      LANGSMITH_BATCH,
    ).sessions;
    expect(session!.turns).toHaveLength(1);
    expect(session!.turns[0]!.user_message).toBe("howdy");
    expect(session!.turns[0]!.agent_interactions[0]!.output).toBe("Howdy! How can I assist you today?");
    expect(session!.turns[0]!.source_ids).toEqual({
      langsmith_trace_id: "dc34609e-3eeb-459d-bc2a-6fedb01d2e6e",
    });
    expect(result.analyses[0]!.tool_calls.total).toBe(0);
  });

  it("reads a runs export: a thread's two traces as turns, calls checked against the model's tools, run ids kept", async () => {
    const result = await analyzeSession(LANGSMITH_RUNS);
    expect(result.analyses).toHaveLength(1);
    const [a] = result.analyses;
    expect(a!.session_id).toBe("thread-9");
    expect(a!.tool_calls).toMatchObject({ total: 2, with_findings: 1, unchecked: 0 });
    expect(findings(a!)).toEqual(["invalid_parameter_type", "tool_error"]);
    const { readSessionFile } = await import("../../src/sessions/analyze.ts");
    const [session] = readSessionFile(LANGSMITH_RUNS).sessions;
    expect(session!.source_ids).toEqual({ langsmith_thread_id: "thread-9" });
    const first = session!.turns[0]!.agent_interactions[0]!;
    expect(first.source_ids).toEqual({ langsmith_run_id: "0c1f2a3b-0001-4000-8000-000000000001" });
    expect(first.agent_steps[0]!.tool_call).toMatchObject({
      tool_name: "get_weather",
      result: "18°C, cloudy",
    });
    expect(first.cost).toBeCloseTo(0.00004, 12);
  });

  it("refuses a run without a run_type, naming its place", async () => {
    const runs = JSON.parse(readFileSync(LANGSMITH_RUNS, "utf8"));
    runs[2].run_type = "";
    const file = join(dir(), "runs.json");
    writeFileSync(file, JSON.stringify(runs));
    const run = await cli(["session", "analyze", file, "--from", "langsmith", "--db", "memory://"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file}:[2].run_type`);
  });
});

describe("Langfuse traces", () => {
  it("reads a trace export: traces of a session as its turns, AGENT observations as interactions, ids kept", async () => {
    const result = await analyzeSession(LANGFUSE);
    expect(result.sources[0]).toMatchObject({ from: "langfuse", sessions: 2 });
    const [support, faq] = result.analyses;
    expect(support!.session_id).toBe("support-session-42");
    expect(support!.tool_calls).toMatchObject({ total: 2, with_findings: 1, unchecked: 0 });
    expect(findings(support!)).toEqual([
      "hallucinated_parameter",
      "missing_required_parameter",
      "tool_error",
    ]);
    expect(faq!.tool_calls.total).toBe(0);
    const { readSessionFile } = await import("../../src/sessions/analyze.ts");
    const [session] = readSessionFile(LANGFUSE).sessions;
    expect(session!.source_ids).toEqual({ langfuse_session_id: "support-session-42" });
    expect(session!.turns.map((t) => t.source_ids!.langfuse_trace_id)).toEqual([
      "7f3c1e0a-0001-4c1e-9d7e-langfuse0001",
      "7f3c1e0a-0002-4c1e-9d7e-langfuse0002",
    ]);
    expect(session!.turns[0]!.agent_interactions[0]!.source_ids).toEqual({
      langfuse_observation_id: "obs-agent-1",
    });
    // The ids an export attaches scores to (session-format.ts's TraceRef), taken from the same ids.
    expect(session!.trace).toEqual({ source: "langfuse", session_id: "support-session-42" });
    expect(session!.turns[0]!.trace).toEqual({
      source: "langfuse",
      trace_id: "7f3c1e0a-0001-4c1e-9d7e-langfuse0001",
    });
    expect(session!.turns[0]!.agent_interactions[0]!.trace).toEqual({
      source: "langfuse",
      span_id: "obs-agent-1",
    });
    expect(session!.turns[0]!.agent_interactions[0]!.agent_steps[0]!.tool_call!.result).toEqual({
      status: "shipped",
      shipped_at: "2026-03-01",
    });
  });

  it("reads a SPAN named as a called tool as that tool's run (an @observe'd tool function)", async () => {
    const doc = JSON.parse(readFileSync(LANGFUSE, "utf8"));
    doc.data[0].observations[2].type = "SPAN";
    const file = join(dir(), "span-tool.json");
    writeFileSync(file, JSON.stringify(doc));
    const { readSessionFile } = await import("../../src/sessions/analyze.ts");
    const imported = readSessionFile(file);
    expect(imported.notes).toEqual([]);
    const call = imported.sessions[0]!.turns[0]!.agent_interactions[0]!.agent_steps[0]!.tool_call!;
    expect(call).toMatchObject({ tool_name: "lookup_order", result: { status: "shipped" }, latency_ms: 250 });
  });

  it("refuses a trace list that gives observation ids only, saying how to export full traces (exit 2)", async () => {
    const file = join(dir(), "list.json");
    writeFileSync(
      file,
      JSON.stringify({ data: [{ id: "t1", timestamp: "2026-03-02T09:00:00Z", observations: ["o1"] }] }),
    );
    const run = await cli(["session", "analyze", file, "--db", "memory://"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file}:data[0].observations[0]`);
    expect(run.stderr).toContain("GET /api/public/traces/{id}");
  });
});
