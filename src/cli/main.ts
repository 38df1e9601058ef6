#!/usr/bin/env -S node --liftoff-only --heap-growing-percent=50 --max-semi-space-size=16 --min-semi-space-size=4
// The `dramaturg` command: parses arguments, runs a command, maps errors to exit codes.
//
// --liftoff-only: PGlite is PostgreSQL compiled to WebAssembly, and V8's optimising tier recompiles its hot
// functions in the background — on two cores that took the CPU of a short command's database thread, and on
// Node 24 about 500 MB of memory for a moment. The baseline compiler alone: a folder store's warm rerun
// 0.95 → 0.70 s, its peak RSS 267 → 190 MB (Node 20), a run's 850 → 314 MB (Node 24); a 100,000-verdict run
// is ≈ 10% slower. A V8 flag must be given at start-up (Node 24 freezes them), hence the shebang (`env -S`
// on Linux and macOS; npm's Windows shims read it too).
//
// --heap-growing-percent=50 --max-semi-space-size=16: V8 lets the old generation grow 1.5× past what the last
// full collection kept (its own factor, up to 4×, let garbage of a long run pile up: a 100,000-verdict run's
// peak was 1.16–1.31× a 5,000-verdict run's on Node 20, 1.49–1.56× on Node 24), and a semi-space of the
// young generation is capped at 16 MB, Node 20's default (on Node 24 the growth factor alone left 1.34×).
// Now 1.13–1.14× on both, at the same verdicts/s.
//
// --min-semi-space-size=4: the young generation starts at 4 MB a semi-space instead of growing there from
// 1 MB, collection by collection, while the command starts: the first judge request ≈ 10 ms sooner on Node 20
// and ≈ 5 ms on Node 24 (12 alternating spawns each), the same verdicts/s and peak RSS for a 5,000-verdict run.
import module from "node:module";
import { endQuietlyOnClosedPipe } from "./closed-pipe.ts";

// Node 22.1+ keeps compiled code on disk between runs (a no-op where it is absent, as on Node 20): later
// commands start faster. The program is imported after it, so that its modules are covered.
module.enableCompileCache?.();
endQuietlyOnClosedPipe();
const { runCli } = await import("./program.ts");

process.exitCode = await runCli(process.argv.slice(2));
