#!/usr/bin/env -S node --liftoff-only
// The `dramaturg` command: parses arguments, runs a command, maps errors to exit codes.
//
// --liftoff-only: PGlite is PostgreSQL compiled to WebAssembly, and V8's optimising tier recompiles its hot
// functions in the background — on two cores that took the CPU of a short command's database thread, and on
// Node 24 about 500 MB of memory for a moment. The baseline compiler alone: a folder store's warm rerun
// 0.95 → 0.70 s, its peak RSS 267 → 190 MB (Node 20), a run's 850 → 314 MB (Node 24); a 100,000-verdict run
// is ≈ 10% slower. A V8 flag must be given at start-up (Node 24 freezes them), hence the shebang (`env -S`
// on Linux and macOS; npm's Windows shims read it too).
import module from "node:module";

// Node 22.1+ keeps compiled code on disk between runs (a no-op where it is absent, as on Node 20): later
// commands start faster. The program is imported after it, so that its modules are covered.
module.enableCompileCache?.();
const { runCli } = await import("./program.ts");

process.exitCode = await runCli(process.argv.slice(2));
