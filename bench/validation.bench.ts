// Benchmark for src/validation (issue 49): `validate` on 1,000,000 answers a side and 20 questions must take
// under 2 s and stay under 400 MB. The questions mix the kinds a survey has — 12 ordinal (1–5), 4 binary,
// 2 categorical (6 categories), 2 numeric (every answer distinct) — drawn from a seeded PRNG, so every run
// measures the same input; half the simulated sides are collapsed, so the verdicts are not all alike.
// What is timed is the comparison of answers already typed (validateAnswers: frequency tables, Welch, χ², KS,
// Wasserstein, entropy, verdicts); reading files is the readers' and is timed beside it on a tenth of the rows.
// Peak RSS is the process's (this benchmark runs in a process of its own), input included.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { seededRandom } from "../src/core/index.ts";
import {
  type QuestionAnswers,
  questionFromFlags,
  readAnswers,
  validateAnswers,
} from "../src/validation/index.ts";
import { fmt, type Outcome } from "./report.ts";

const ANSWERS = 1_000_000;
const MAX_SECONDS = 2;
const MAX_RSS_MB = 400;
const FILE_ROWS = 100_000;

/** Answers drawn from `shares` (index i with probability shares[i]), plus `offset`, as compact bytes. */
function draw(n: number, shares: readonly number[], random: () => number, offset = 0): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    let u = random();
    let k = 0;
    while (k < shares.length - 1 && u >= shares[k]!) u -= shares[k++]!;
    out[i] = k + offset;
  }
  return out;
}

function normal(n: number, mean: number, sd: number, random: () => number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - random()));
    const angle = 2 * Math.PI * random();
    out[i] = mean + sd * r * Math.cos(angle);
    if (i + 1 < n) out[i + 1] = mean + sd * r * Math.sin(angle);
  }
  return out;
}

const WIDE = [0.2, 0.2, 0.25, 0.2, 0.15];
const NARROW = [0.02, 0.2, 0.56, 0.2, 0.02];
const CATEGORIES = ["app", "device", "tablet", "speaker", "book", "none"];

export function benchQuestions(n: number, seed = 49): QuestionAnswers[] {
  const random = seededRandom(seed);
  const questions: QuestionAnswers[] = [];
  for (let q = 0; q < 12; q++)
    questions.push({
      question: `ordinal ${q + 1}`,
      kind: "ordinal",
      scale: [1, 2, 3, 4, 5],
      real: draw(n, WIDE, random, 1),
      simulated: draw(n, q % 2 === 0 ? NARROW : WIDE, random, 1),
    });
  for (let q = 0; q < 4; q++)
    questions.push({
      question: `binary ${q + 1}`,
      kind: "binary",
      real: draw(n, [0.55, 0.45], random),
      simulated: draw(n, q % 2 === 0 ? [0.45, 0.55] : [0.55, 0.45], random),
    });
  for (let q = 0; q < 2; q++)
    questions.push({
      question: `categorical ${q + 1}`,
      kind: "categorical",
      categories: CATEGORIES,
      real: draw(n, [0.2, 0.2, 0.15, 0.15, 0.15, 0.15], random),
      simulated: draw(
        n,
        q === 0 ? [0.6, 0.2, 0.05, 0.05, 0.05, 0.05] : [0.2, 0.2, 0.15, 0.15, 0.15, 0.15],
        random,
      ),
    });
  for (let q = 0; q < 2; q++)
    questions.push({
      question: `numeric ${q + 1}`,
      kind: "numeric",
      real: normal(n, 50, 12, random),
      simulated: normal(n, 50, q === 0 ? 4 : 12, random),
    });
  return questions;
}

function timed<T>(run: () => T): { result: T; wall_s: number; cpu_s: number } {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = run();
  const used = process.cpuUsage(cpu);
  return { result, wall_s: (performance.now() - start) / 1000, cpu_s: (used.user + used.system) / 1e6 };
}

/** Two CSV files of `rows` answers to the 12 ordinal questions, for the readers' figure. */
function writeAnswerFiles(dir: string, rows: number): { real: string; simulated: string } {
  const random = seededRandom(4949);
  const header = Array.from({ length: 12 }, (_, q) => `Q${q + 1}`).join(",");
  const files = { real: join(dir, "real.csv"), simulated: join(dir, "simulated.csv") };
  for (const [side, path] of Object.entries(files)) {
    const lines = [header];
    for (let r = 0; r < rows; r++)
      lines.push(
        Array.from(
          { length: 12 },
          (_, q) => draw(1, side === "simulated" && q % 2 === 0 ? NARROW : WIDE, random, 1)[0],
        ).join(","),
      );
    writeFileSync(path, `${lines.join("\n")}\n`);
  }
  return files;
}

async function benchValidation(): Promise<Outcome> {
  // The library's first call (loading @stdlib) on a small set, as any second call in a process would be.
  validateAnswers({ questions: benchQuestions(2_000, 1) });
  const questions = benchQuestions(ANSWERS);
  const load = loadavg()[0]!;
  const whole = timed(() => validateAnswers({ questions }));
  const peakMb = process.resourceUsage().maxRSS / 1024;
  const v = whole.result;

  const dir = mkdtempSync(join(tmpdir(), "dramaturg-bench-validation-"));
  let reading: { wall_s: number; cpu_s: number };
  try {
    const files = writeAnswerFiles(dir, FILE_ROWS);
    const specs = Array.from({ length: 12 }, (_, q) =>
      questionFromFlags({ column: `Q${q + 1}`, kind: "ordinal", scale: "1-5" }),
    );
    reading = timed(() => readAnswers({ ...files, questions: specs }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const verdicts = Object.entries(v.summary.verdicts)
    .map(([verdict, n]) => `${n} ${verdict}`)
    .join(", ");
  const computed =
    v.questions.length === 20 && v.questions.every((q) => q.real.n === ANSWERS && q.simulated.n === ANSWERS);
  return {
    checks: [
      {
        metric: `${fmt(ANSWERS)} answers a side, 20 questions: wall (CPU)`,
        value: `${fmt(whole.wall_s, 2)} s (${fmt(whole.cpu_s, 2)} s)`,
        target: `< ${MAX_SECONDS} s`,
        pass: whole.wall_s < MAX_SECONDS,
      },
      {
        metric: "peak RSS of the process (the input included)",
        value: `${fmt(peakMb)} MB`,
        target: `< ${MAX_RSS_MB} MB`,
        pass: peakMb < MAX_RSS_MB,
      },
      {
        metric: "every question compared on every answer (verdicts)",
        value: `${computed ? "yes" : "no"} (${verdicts})`,
        target: "yes",
        pass: computed && v.summary.verdicts.consistent > 0 && v.summary.failed > 0,
      },
      {
        metric: `reading two CSVs of ${fmt(FILE_ROWS)} rows × 12 questions (readers, typed): wall (CPU)`,
        value: `${fmt(reading.wall_s, 2)} s (${fmt(reading.cpu_s, 2)} s)`,
      },
      { metric: "load average (1 min) at the start", value: fmt(load, 2) },
    ],
    details: {
      answers_per_side: ANSWERS,
      questions: 20,
      whole: { wall_s: whole.wall_s, cpu_s: whole.cpu_s },
      peak_rss_mb: peakMb,
      reading: { rows: FILE_ROWS, questions: 12, ...reading },
      load_average: load,
      verdicts: v.summary.verdicts,
    },
  };
}

/** Registered in bench/run.ts as one entry of its list. */
export const validationBenchmark = {
  name: "validation",
  about: `issue 49: validate ${fmt(ANSWERS)} answers a side, 20 questions (ordinal, binary, categorical, numeric), every test and verdict; the readers on ${fmt(FILE_ROWS)} rows`,
  run: benchValidation,
};
