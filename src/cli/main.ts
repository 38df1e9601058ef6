#!/usr/bin/env node
// The `dramaturg` command: parses arguments, runs a command, maps errors to exit codes.
import module from "node:module";

// Node 22.1+ keeps compiled code on disk between runs (a no-op where it is absent, as on Node 20): later
// commands start faster. The program is imported after it, so that its modules are covered.
module.enableCompileCache?.();
const { runCli } = await import("./program.ts");

process.exitCode = await runCli(process.argv.slice(2));
