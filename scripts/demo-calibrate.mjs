#!/usr/bin/env node
// `npm run demo:calibrate`: calibration end to end, offline. The ensemble is evaluated with its hand-written
// fixture verdicts into a temp store, then `dramaturg calibrate` compares those verdicts with the
// hand-written example labels of two raters (examples/ensemble/labels/). Both are examples, not a study.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = join(root, "bin/dramaturg.js");
const example = (file) => relative(process.cwd(), join(root, "examples/ensemble", file)) || ".";
const store = mkdtempSync(join(tmpdir(), "dramaturg-calibrate-demo-"));

/** Runs the CLI, echoing the command; returns its exit code and stdout (stderr goes to the terminal). */
function dramaturg(args, { quiet = false } = {}) {
  process.stdout.write(`$ dramaturg ${args.map((a) => (a === store ? "<temp store>" : a)).join(" ")}\n`);
  const child = spawnSync(process.execPath, [bin, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (!quiet) process.stdout.write(child.stdout);
  return { code: child.status, out: child.stdout };
}

try {
  const evaluated = dramaturg(
    [
      "eval",
      example("transcript.json"),
      "--propositions",
      example("propositions"),
      "--judge",
      `fixtures:${example("judge-fixtures.json")}`,
      "--db",
      store,
      "--format",
      "json",
      "--no-progress",
    ],
    { quiet: true },
  );
  if (evaluated.code !== 0) process.exit(evaluated.code ?? 3);
  const { evaluation_id: id } = JSON.parse(evaluated.out);
  process.stdout.write(`(evaluation ${id.slice(0, 8)} stored)\n\n`);
  const calibrated = dramaturg([
    "calibrate",
    "--db",
    store,
    "--run",
    id.slice(0, 8),
    "--labels",
    example("labels/rater-a.yaml"),
    example("labels/rater-b.csv"),
  ]);
  // Exit 1 is calibrate's answer when a proposition is flagged, which the demo labels are made to show.
  if (calibrated.code === 1)
    process.stdout.write("\n(exit 1: propositions flagged, as these example labels are meant to show)\n");
  else if (calibrated.code !== 0) process.exitCode = calibrated.code ?? 3;
} finally {
  rmSync(store, { recursive: true, force: true });
}
