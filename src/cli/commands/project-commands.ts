// The everyday project commands (init, config, doctor, cache), registered on the program together.
import type { Command } from "commander";
import { registerCacheCommand } from "./cache.ts";
import { registerConfigCommand } from "./config.ts";
import { registerDoctorCommand } from "./doctor.ts";
import { registerInitCommand } from "./init.ts";

export function registerProjectCommands(program: Command): void {
  registerInitCommand(program);
  registerConfigCommand(program);
  registerDoctorCommand(program);
  registerCacheCommand(program);
}
