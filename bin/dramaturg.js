#!/usr/bin/env node
// Entry point of the `dramaturg` command: loads the TypeScript CLI through tsx's loader.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
