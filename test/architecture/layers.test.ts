// The module map of DESIGN.md as a check: a folder of src/ imports only folders below it in LAYERS (the
// ground first), and another folder only through its index.ts. dpdm (`npm run check:cycles`) catches cycles;
// this catches the upward import that is not yet one. Type-only imports count too: a type is a dependency.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

/** The folders from the ground up: each may import only the ones before it. */
const LAYERS = [
  "core",
  "propositions",
  "judge",
  "text",
  "store",
  "rate-limit",
  "engine",
  "personas",
  "sessions",
  "online",
  "conversations",
  "sim",
  "corrections",
  "regression",
  "experiments",
  "calibration",
  "validation",
  "redteam",
  "kinds",
  "export",
  "queue",
  "web",
  "server",
  "testing",
  "vitest",
  "cli",
  "entries",
];

/**
 * Imports that reach past a folder's index.ts on purpose, each with its reason. Keep it short: a new entry
 * needs a reason a reviewer accepts.
 */
const PAST_THE_INDEX: Record<string, string> = {
  // The cache folder's location, without core's schemas on the start-up path of every command.
  "cli/code-cache.ts -> core/cache-folder.ts": "start-up",
  "store/pristine-data-dir.ts -> core/cache-folder.ts": "start-up",
  // `dramaturg schema` loads one format's schema at a time, lazily, not the whole family.
  "cli/program.ts -> sessions/session-format.ts": "lazy schema",
  "cli/program.ts -> conversations/job.ts": "lazy schema",
  "cli/program.ts -> sim/world-file.ts": "lazy schema",
  "cli/program.ts -> experiments/scenario.ts": "lazy schema",
  "cli/program.ts -> experiments/compare.ts": "lazy schema",
  "cli/program.ts -> experiments/population.ts": "lazy schema",
  "cli/program.ts -> experiments/population-profile.ts": "lazy schema",
  // The population command and the online rules read one module each, not the experiments or online family.
  "cli/commands/population.ts -> experiments/population-profile.ts": "start-up",
  "cli/commands/population.ts -> experiments/population-factory.ts": "start-up",
  "cli/commands/population.ts -> experiments/population.ts": "start-up",
  "cli/commands/online.ts -> online/online-rule.ts": "start-up",
  "cli/settings.ts -> online/online-rule.ts": "start-up",
  "cli/settings.ts -> export/export-rule.ts": "start-up",
  "export/export-rule.ts -> online/online-rule.ts": "start-up",
  // Commands whose output is a kind's report (pure text, types only): the report, not its folder, at start-up.
  "cli/commands/eval.ts -> sim/simulation-report.ts": "start-up",
  "cli/commands/simulate.ts -> sim/simulation-report.ts": "start-up",
  "cli/commands/session.ts -> sessions/session-formats.ts": "start-up",
  "cli/evaluation-options.ts -> sessions/session-formats.ts": "start-up",
};

/** Every relative module a file names: static imports and re-exports (type-only too) and `import()`. */
function relativeImports(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+["']([^"']+)["']/gm))
    found.push(m[1]!);
  for (const m of source.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) found.push(m[1]!);
  return found.filter((s) => s.startsWith("."));
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith(".ts") && !path.endsWith(".test.ts") ? [path] : [];
  });
}

interface Edge {
  from: string;
  to: string;
  fromFolder: string;
  toFolder: string;
}

function edges(): Edge[] {
  return sourceFiles(SRC).flatMap((file) => {
    const from = relative(SRC, file);
    return relativeImports(readFileSync(file, "utf8")).map((specifier) => {
      const to = relative(SRC, resolve(dirname(file), specifier));
      return { from, to, fromFolder: from.split("/")[0]!, toFolder: to.split("/")[0]! };
    });
  });
}

describe("the module map", () => {
  const all = edges();
  const crossing = all.filter(
    (e) => e.fromFolder !== e.toFolder && e.from.includes("/") && e.to.includes("/"),
  );

  it("reads imports of every kind and finds the folders", () => {
    expect(
      relativeImports('import type { A } from "../core/index.ts";\nconst m = await import("./x.ts");'),
    ).toEqual(["../core/index.ts", "./x.ts"]);
    expect(crossing.some((e) => e.fromFolder === "engine" && e.toFolder === "judge")).toBe(true);
  });

  it("names every folder of src/ in its layers", () => {
    const folders = readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isDirectory());
    expect(folders.filter((f) => !LAYERS.includes(f))).toEqual([]);
  });

  it("no folder imports a folder above it", () => {
    const upward = crossing
      .filter((e) => LAYERS.indexOf(e.toFolder) > LAYERS.indexOf(e.fromFolder))
      .map((e) => `${e.from} -> ${e.to}`);
    expect(upward).toEqual([]);
  });

  it("another folder is reached through its index.ts, but for the listed reasons", () => {
    const past = crossing
      .filter((e) => !/^[a-z-]+\/index\.ts$/.test(e.to))
      .map((e) => `${e.from} -> ${e.to}`)
      .filter((edge) => !(edge in PAST_THE_INDEX));
    expect(past).toEqual([]);
  });

  it("the dashboard and the API read online alerts from the store, importing neither the queue nor online/", () => {
    const reaching = crossing
      .filter((e) => ["web", "server"].includes(e.fromFolder) && ["queue", "online"].includes(e.toFolder))
      .map((e) => `${e.from} -> ${e.to}`);
    expect(reaching).toEqual([]);
  });

  it("every listed exception is still an import (the list does not outlive its reasons)", () => {
    const present = new Set(crossing.map((e) => `${e.from} -> ${e.to}`));
    expect(Object.keys(PAST_THE_INDEX).filter((edge) => !present.has(edge))).toEqual([]);
  });
});
