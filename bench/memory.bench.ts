// Peak memory of a whole persona evaluation by its size: the instant judge, adherence only, 5,000 and
// 100,000 verdicts, each run in a Node process of its own so that peaks do not mix. A run that streams its
// verdicts to the store and aggregates as they come should peak at about the same RSS whatever its size.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cliNodeOptions } from "./cli-run.bench.ts";

/**
 * Where the run stores and how it grows: a folder store or memory://, with a transcript that grows with the
 * run (five verdicts a message), or (`folder-trials`) the same 1,000 messages judged in more trials, so
 * that only the verdicts grow and not the input.
 */
export type MemoryStoreKind = "folder" | "folder-trials" | "memory";

export interface PeakRun {
  verdicts: number;
  stored_rows: number;
  errored: number;
  wall_ms: number;
  verdicts_per_second: number;
  /** Peak resident memory of the whole process, MB. */
  peak_rss_mb: number;
}

export interface PeakRssFigures {
  /** Verdicts of the small and the large run. */
  sizes: [number, number];
  runs: Record<MemoryStoreKind, { small: PeakRun; large: PeakRun; ratio: number }>;
}

const SELF = fileURLToPath(import.meta.url);
/** Five adherence propositions per message (bench/fixtures/propositions). */
const PROPOSITIONS_PER_MESSAGE = 5;

/** Messages of the `folder-trials` runs: 5,000 verdicts a trial. */
const TRIAL_MESSAGES = 1_000;

/**
 * In the child: one evaluation of `verdicts` verdicts into the store at `location`, from a transcript of
 * five verdicts a message or (`byTrials`) of 1,000 messages judged in as many trials as needed; prints
 * its figures.
 */
async function runOnce(verdicts: number, location: string, byTrials: boolean): Promise<void> {
  const { personaInput } = await import("./persona.bench.ts");
  const { InstantJudge } = await import("./instant-judge.ts");
  const { evaluatePersonas } = await import("../src/personas/index.ts");
  const { openStore } = await import("../src/store/index.ts");
  const messages = byTrials ? TRIAL_MESSAGES : Math.ceil(verdicts / PROPOSITIONS_PER_MESSAGE);
  const trials = byTrials ? Math.ceil(verdicts / (TRIAL_MESSAGES * PROPOSITIONS_PER_MESSAGE)) : 1;
  const input = await personaInput(messages);
  const store = await openStore(location);
  try {
    const started = performance.now();
    const result = await evaluatePersonas({
      transcript: input.transcript,
      source: "bench:memory",
      propositions: input.propositions,
      dimensions: ["adherence"],
      mode: "individual",
      trials,
      judge: new InstantJudge(),
      store,
      concurrency: 16,
      cache: false,
    });
    const wall_ms = performance.now() - started;
    const summary = await store.scores.summary(result.evaluation_id);
    const figures: PeakRun = {
      verdicts: result.totals.verdicts,
      errored: result.totals.errored,
      stored_rows: summary.ok + summary.errored + summary.trivial,
      wall_ms: Math.round(wall_ms),
      verdicts_per_second: Math.round(result.totals.verdicts / (wall_ms / 1000)),
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    };
    process.stdout.write(JSON.stringify(figures));
  } finally {
    await store.close();
  }
}

function child(verdicts: number, location: string, byTrials = false): PeakRun {
  const args = [SELF, "--run", String(verdicts), location, ...(byTrials ? ["--trials"] : [])];
  // With the Node options `dramaturg` starts with (its shebang's), as a run of the command would be.
  const run = spawnSync(process.execPath, [...cliNodeOptions(), ...process.execArgv, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 16 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`the ${verdicts}-verdict run exited ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout) as PeakRun;
}

/** Peak RSS of a small and a large run, in a folder store and in memory://. */
export async function benchPeakRss(small = 5_000, large = 100_000): Promise<PeakRssFigures> {
  const dir = mkdtempSync(join(tmpdir(), "dramaturg-peak-rss-"));
  try {
    let fresh = 0;
    const locations: Record<MemoryStoreKind, () => string> = {
      folder: () => join(dir, `store-${fresh++}`),
      "folder-trials": () => join(dir, `store-${fresh++}`),
      memory: () => "memory://",
    };
    // Warm-up: the first new folder may make the pristine data directory (initdb), which peaks far higher.
    child(PROPOSITIONS_PER_MESSAGE * 10, locations.folder());
    const runs = {} as PeakRssFigures["runs"];
    for (const kind of Object.keys(locations) as MemoryStoreKind[]) {
      const byTrials = kind === "folder-trials";
      const smallRun = child(small, locations[kind](), byTrials);
      const largeRun = child(large, locations[kind](), byTrials);
      runs[kind] = { small: smallRun, large: largeRun, ratio: largeRun.peak_rss_mb / smallRun.peak_rss_mb };
    }
    return { sizes: [small, large], runs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--run")
  await runOnce(Number(process.argv[3]), process.argv[4]!, process.argv[5] === "--trials");
else if (process.argv[1] === SELF) console.log(JSON.stringify(await benchPeakRss(), null, 2));
