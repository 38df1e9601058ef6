#!/usr/bin/env node
// The `dramaturg` command: parses arguments, runs a command, maps errors to exit codes.
import { runCli } from "./program.ts";

process.exitCode = await runCli(process.argv.slice(2));
