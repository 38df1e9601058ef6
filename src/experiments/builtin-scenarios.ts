// The four scenarios of TinyTroupe's Table 1, shipped as YAML beside this module (copied into dist/ by
// scripts/copy-assets.mjs), and the one way a command turns SCENARIO (a built-in name or a file) into one.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { InputError } from "../core/index.ts";
import { loadScenarioFile, type Scenario } from "./scenario.ts";

/** Absolute path of the folder holding `<name>.yaml` for every built-in scenario. */
export const BUILTIN_SCENARIOS_DIR = fileURLToPath(new URL("./scenarios/", import.meta.url));

/** The built-in scenarios, in Table 1's order. */
export const BUILTIN_SCENARIO_NAMES = [
  "brainstorming-average",
  "brainstorming-difficult-full",
  "brainstorming-difficult-variety",
  "debate-controversial",
] as const;
export type BuiltinScenarioName = (typeof BUILTIN_SCENARIO_NAMES)[number];

export function isBuiltinScenarioName(name: string): name is BuiltinScenarioName {
  return (BUILTIN_SCENARIO_NAMES as readonly string[]).includes(name);
}

/** Path of a built-in scenario's YAML file. */
export function builtinScenarioPath(name: BuiltinScenarioName): string {
  return join(BUILTIN_SCENARIOS_DIR, `${name}.yaml`);
}

/** A built-in scenario by name; an unknown name is an InputError listing the known ones. */
export function loadBuiltinScenario(name: string): Scenario {
  if (!isBuiltinScenarioName(name))
    throw new InputError(
      `unknown built-in scenario "${name}"; expected one of ${BUILTIN_SCENARIO_NAMES.join(", ")}`,
    );
  return loadScenarioFile(builtinScenarioPath(name));
}

/** Every built-in scenario, in Table 1's order. */
export function listBuiltinScenarios(): Scenario[] {
  return BUILTIN_SCENARIO_NAMES.map((name) => loadBuiltinScenario(name));
}

/**
 * SCENARIO as a command is given it: a built-in name, else a scenario file. A file that does not exist and
 * is no built-in name gets one message that lists the built-ins.
 */
export function resolveScenario(nameOrFile: string): Scenario {
  if (isBuiltinScenarioName(nameOrFile)) return loadBuiltinScenario(nameOrFile);
  if (!existsSync(nameOrFile))
    throw new InputError(
      `no scenario file here, and not a built-in scenario; expected a file or one of ${BUILTIN_SCENARIO_NAMES.join(", ")}`,
      { file: nameOrFile },
    );
  return loadScenarioFile(nameOrFile);
}
