// The shared peer bench (../shared/peerbench, README there) as the issue-18 rows are measured: rounds of the
// peers and Dramaturg interleaved on each Node version given, each run appending one JSON line, then the
// table of bench/RESULTS.md printed from them. Per round and Node version, in this order:
//   200 ms judge: autoevals, openevals, Dramaturg individual through npx and run directly (new folder),
//                 batch through npx (new folder, memory://) and run directly (new folder);
//   instant judge: autoevals, openevals, Dramaturg individual through npx (memory://, new folder), batch
//                 through npx (memory://), individual run directly (memory://);
//   and npx alone: `npx --no-install` of a package of one line and no dependencies, from its own root (as
//   the bench runs Dramaturg from the project's root), against the same line run directly.
// "Directly" is run-dramaturg.sh with its `npx --no-install dramaturg` replaced by the project's bin; nothing
// else of the run changes. Needs the built command (npm run build) and the peers (setup-peers.sh, run here
// when they are missing). Each round takes ≈ 6 minutes; run it on a quiet machine.
//
// Usage: node --import tsx bench/peer-rounds.ts [--rounds 2] [--node BIN_DIR]... [--out bench/out/peer-results.jsonl]
//                                                [--peerbench ../shared/peerbench]
//        node --import tsx bench/peer-rounds.ts --table FILE      (only the table, from an earlier run's lines)
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { medianWallMs } from "./median.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** One line of the results: a run of the peer bench's scripts, or an "npx alone" figure. */
interface Line {
  tool: string;
  label: string;
  mode?: string;
  N: number;
  J: number;
  latency_ms: number;
  rc: number;
  valid: boolean;
  max_in_flight: number;
  wall_s: number;
  ideal_s: number;
  startup_s: number;
  cpu_s: number;
  peak_rss_mb: number;
  verdicts_per_s: number;
  tokens_per_verdict: number;
  schema_tokens: number;
  schema_tokens_per_verdict: number;
  npx_s: number;
  direct_s: number;
}

function option(name: string, fallback?: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}
const PEERBENCH = resolve(option("peerbench", join(ROOT, "..", "shared", "peerbench"))!);
const options = (name: string) =>
  process.argv.flatMap((arg, i) =>
    arg === `--${name}` ? [process.argv[i + 1] ?? fail(`--${name} needs a value`)] : [],
  );

const tableOnly = option("table");
if (tableOnly) {
  console.log(table(readLines(tableOnly)));
  process.exit(0);
}

const rounds = Number(option("rounds", "2"));
const nodes = options("node").length > 0 ? options("node") : [dirname(process.execPath)];
const out = resolve(option("out", join(ROOT, "bench", "out", "peer-results.jsonl"))!);
for (const needed of [join(ROOT, "dist", "bin", "dramaturg.cjs"), join(PEERBENCH, "run-dramaturg.sh")])
  if (!existsSync(needed)) fail(`${needed} is missing (npm run build; ../shared/peerbench)`);
const peers = process.env.PEERBENCH_DIR ?? join(tmpdir(), "dramaturg-peerbench");
if (
  !existsSync(join(peers, "autoevals", "node_modules")) ||
  !existsSync(join(peers, "openevals", "node_modules"))
)
  run("bash", [join(PEERBENCH, "setup-peers.sh")]);
mkdirSync(dirname(out), { recursive: true });

// run-dramaturg.sh with the bin in place of npx, and its rows named apart.
const original = readFileSync(join(PEERBENCH, "run-dramaturg.sh"), "utf8");
const swaps: [from: string, to: string][] = [
  ["npx --no-install dramaturg", '"$DG_DIR/dist/bin/dramaturg.cjs"'],
  ["tool: 'dramaturg'", "tool: 'dramaturg-direct'"],
  ['HERE=$(cd "$(dirname "$0")" && pwd)', `HERE=${JSON.stringify(PEERBENCH)}`],
];
const direct = swaps.reduce((text, [from, to]) => {
  if (!text.includes(from)) fail(`run-dramaturg.sh changed: "${from}" is not in it`);
  return text.replace(from, to);
}, original);
const work = mkdtempSync(join(tmpdir(), "peer-rounds-"));
try {
  const directScript = join(work, "run-dramaturg-direct.sh");
  writeFileSync(directScript, direct);
  chmodSync(directScript, 0o755);

  // A package of one line, run through npx from its own root as the bench runs Dramaturg.
  const bare = join(work, "bare");
  mkdirSync(join(bare, "bin"), { recursive: true });
  writeFileSync(
    join(bare, "package.json"),
    '{"name":"npx-floor","version":"1.0.0","bin":{"npx-floor":"bin/x.cjs"}}',
  );
  writeFileSync(join(bare, "bin", "x.cjs"), "#!/usr/bin/env node\n");
  chmodSync(join(bare, "bin", "x.cjs"), 0o755);

  for (let round = 1; round <= rounds; round++) {
    for (const bin of nodes) {
      const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, PEERBENCH_RESULTS: out };
      const version = execFileSync(join(bin, "node"), ["--version"], { encoding: "utf8" }).trim();
      const label = `${version} r${round}`;
      console.error(`peer-rounds: round ${round} on Node ${version}`);
      const peer = (script: string, latency: number, ...more: string[]) =>
        run("node", [join(PEERBENCH, script), "1000", String(latency), "16", ...more, "--label", label], env);
      const dg = (script: string, latency: number, mode: string, db?: string) =>
        run(script, ["1000", String(latency), "16", mode], {
          ...env,
          LABEL: label,
          ...(db ? { DB: db } : {}),
        });
      const npx = join(PEERBENCH, "run-dramaturg.sh");
      peer("run-autoevals.mjs", 200);
      peer("run-openevals.mjs", 200, "--judge", "openai");
      dg(npx, 200, "individual");
      dg(directScript, 200, "individual");
      dg(npx, 200, "batch");
      dg(npx, 200, "batch", "memory://");
      dg(directScript, 200, "batch");
      peer("run-autoevals.mjs", 0);
      peer("run-openevals.mjs", 0, "--judge", "openai");
      dg(npx, 0, "individual", "memory://");
      dg(npx, 0, "individual");
      dg(npx, 0, "batch", "memory://");
      dg(directScript, 0, "individual", "memory://");
      const floor = {
        tool: "npx-floor",
        label,
        npx_s: seconds(medianWallMs("npx", ["--no-install", "npx-floor"], 11, { cwd: bare, env })),
        direct_s: seconds(medianWallMs(join(bare, "bin", "x.cjs"), [], 11, { cwd: bare, env })),
      };
      writeFileSync(out, `${JSON.stringify(floor)}\n`, { flag: "a" });
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(table(readLines(out)));

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  const { status } = spawnSync(command, args, { stdio: ["ignore", "ignore", "inherit"], env, cwd: ROOT });
  if (status !== 0) console.error(`peer-rounds: ${command} ${args.join(" ")} exited with ${status}`);
}

function seconds(ms: number): number {
  return Number((ms / 1000).toFixed(3));
}

function readLines(file: string): Line[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Line);
}

function fail(message: string): never {
  console.error(`peer-rounds: ${message}`);
  process.exit(2);
}

/** The rows of bench/RESULTS.md's peer tables: each cell one figure per round, in the order run. */
function table(lines: Line[]): string {
  const labels = [...new Set(lines.map((l) => l.label))];
  const cell = (match: (l: Line) => boolean, figure: (l: Line) => string | number, nth = 0) =>
    labels
      .map((label) => {
        const line = lines.filter((l) => l.label === label && match(l))[nth];
        return line ? figure(line) : "–";
      })
      .join(" / ");
  const is = (tool: string, latency: number, mode?: string) => (l: Line) =>
    l.tool === tool && l.latency_ms === latency && (mode === undefined || l.mode === mode);
  const ratio = (l: Line) => (l.wall_s / l.ideal_s).toFixed(4);
  const cpu = (l: Line) => ((l.cpu_s * 1000) / (5 * l.N)).toFixed(2);
  const rows = [
    ["rounds", labels.join(" / ")],
    ["(a) 200 ms: wall × ideal, autoevals", cell(is("autoevals", 200), ratio)],
    ["openevals", cell(is("openevals-oai", 200), ratio)],
    ["Dramaturg individual, new folder (npx)", cell(is("dramaturg", 200, "individual"), ratio)],
    ["the same, direct", cell(is("dramaturg-direct", 200, "individual"), ratio)],
    ["Dramaturg batch, new folder (npx)", cell(is("dramaturg", 200, "batch"), ratio)],
    ["Dramaturg batch, memory:// (npx)", cell(is("dramaturg", 200, "batch"), ratio, 1)],
    ["Dramaturg batch, new folder, direct", cell(is("dramaturg-direct", 200, "batch"), ratio)],
    ["(a) wall s: autoevals", cell(is("autoevals", 200), (l) => l.wall_s)],
    ["Dramaturg individual (npx)", cell(is("dramaturg", 200, "individual"), (l) => l.wall_s)],
    ["the same, direct", cell(is("dramaturg-direct", 200, "individual"), (l) => l.wall_s)],
    ["(a) start-up s: autoevals", cell(is("autoevals", 200), (l) => l.startup_s)],
    ["openevals", cell(is("openevals-oai", 200), (l) => l.startup_s)],
    ["Dramaturg individual, new folder (npx)", cell(is("dramaturg", 200, "individual"), (l) => l.startup_s)],
    ["the same, direct", cell(is("dramaturg-direct", 200, "individual"), (l) => l.startup_s)],
    ["Dramaturg batch, memory:// (npx)", cell(is("dramaturg", 200, "batch"), (l) => l.startup_s, 1)],
    ["(a) peak RSS MB: autoevals", cell(is("autoevals", 200), (l) => l.peak_rss_mb)],
    ["Dramaturg individual, new folder", cell(is("dramaturg", 200, "individual"), (l) => l.peak_rss_mb)],
    ["Dramaturg batch, memory://", cell(is("dramaturg", 200, "batch"), (l) => l.peak_rss_mb, 1)],
    ["(b) instant: verdicts/s, autoevals", cell(is("autoevals", 0), (l) => Math.round(l.verdicts_per_s))],
    ["openevals", cell(is("openevals-oai", 0), (l) => Math.round(l.verdicts_per_s))],
    [
      "Dramaturg individual, memory:// (npx)",
      cell(is("dramaturg", 0, "individual"), (l) => Math.round(l.verdicts_per_s)),
    ],
    [
      "Dramaturg individual, new folder (npx)",
      cell(is("dramaturg", 0, "individual"), (l) => Math.round(l.verdicts_per_s), 1),
    ],
    [
      "Dramaturg batch, memory:// (npx)",
      cell(is("dramaturg", 0, "batch"), (l) => Math.round(l.verdicts_per_s)),
    ],
    [
      "Dramaturg individual, memory://, direct",
      cell(is("dramaturg-direct", 0, "individual"), (l) => Math.round(l.verdicts_per_s)),
    ],
    ["(b) CPU ms per verdict: autoevals", cell(is("autoevals", 0), cpu)],
    ["openevals", cell(is("openevals-oai", 0), cpu)],
    ["Dramaturg individual, memory:// (npx's CPU included)", cell(is("dramaturg", 0, "individual"), cpu)],
    ["the same, direct", cell(is("dramaturg-direct", 0, "individual"), cpu)],
    ["(b) start-up s: autoevals", cell(is("autoevals", 0), (l) => l.startup_s)],
    ["Dramaturg individual, memory:// (npx)", cell(is("dramaturg", 0, "individual"), (l) => l.startup_s)],
    ["the same, direct", cell(is("dramaturg-direct", 0, "individual"), (l) => l.startup_s)],
    ["(b) peak RSS MB: autoevals", cell(is("autoevals", 0), (l) => l.peak_rss_mb)],
    ["Dramaturg individual, memory://", cell(is("dramaturg", 0, "individual"), (l) => l.peak_rss_mb)],
    [
      "tokens per verdict + schema: autoevals",
      cell(is("autoevals", 0), (l) => `${l.tokens_per_verdict} + ${Math.round(l.schema_tokens / (5 * l.N))}`),
    ],
    [
      "Dramaturg individual",
      cell(
        is("dramaturg", 0, "individual"),
        (l) => `${l.tokens_per_verdict} + ${l.schema_tokens_per_verdict}`,
      ),
    ],
    [
      "Dramaturg batch",
      cell(is("dramaturg", 0, "batch"), (l) => `${l.tokens_per_verdict} + ${l.schema_tokens_per_verdict}`),
    ],
    ["every verdict scored, Dramaturg", allValid(lines)],
    [
      "npx alone: a one-line package from its root, s",
      cell(
        (l) => l.tool === "npx-floor",
        (l) => l.npx_s,
      ),
    ],
    [
      "the same line run directly, s",
      cell(
        (l) => l.tool === "npx-floor",
        (l) => l.direct_s,
      ),
    ],
  ];
  return ["| | |", "|---|---|", ...rows.map(([name, value]) => `| ${name} | ${value} |`)].join("\n");
}

function allValid(lines: Line[]): string {
  const runs = lines.filter((l) => l.tool.startsWith("dramaturg"));
  const valid = runs.filter((l) => l.valid && l.rc === 0 && l.max_in_flight <= l.J).length;
  return `${valid} of ${runs.length} runs (rc 0, every verdict scored, never more than J in flight)`;
}
