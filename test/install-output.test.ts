// What `npm ci` in a clone and `npm install` of the tarball print: only what the user must act on. The
// lockfile is checked here against npm 11's script policy and the engine warnings .ci/npm-warnings.mjs allows;
// .ci/run and .ci/package-check.sh check npm's real output with the same script.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "./temp-dir.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CHECK = join(ROOT, ".ci", "npm-warnings.mjs");

interface LockedPackage {
  version: string;
  engines?: { node?: string };
  hasInstallScript?: boolean;
}
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  allowScripts?: Record<string, boolean>;
};
const locked = Object.entries(
  (
    JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, LockedPackage>;
    }
  ).packages,
)
  .filter(([path]) => path !== "")
  .map(([path, pkg]) => ({
    name: path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length),
    ...pkg,
  }));

/** The oldest Node major an `engines.node` range admits: `>=22`, `^22.12.0 || >=24` → 22; `>=20.19.0` → 20. */
function oldestNodeMajor(range: string): number {
  return Math.min(
    ...range.split("||").map((alternative) => {
      const trimmed = alternative.trim();
      return trimmed.startsWith("<") ? 0 : Number(/\d+/.exec(trimmed)?.[0] ?? 0);
    }),
  );
}

/** Runs the install-output check on what npm printed; its exit code and what it said. */
function checkNpmOutput(output: string): { code: number | null; said: string } {
  const log = join(tempDir(), "npm.log");
  writeFileSync(log, output);
  const run = spawnSync(process.execPath, [CHECK, log, "npm"], { encoding: "utf8" });
  return { code: run.status, said: run.stdout + run.stderr };
}

/** npm's EBADENGINE block for a package, as npm 11 prints it on Node 20. */
const engineWarning = (name: string, version: string, range: string) =>
  [
    "npm warn EBADENGINE Unsupported engine {",
    `npm warn EBADENGINE   package: '${name}@${version}',`,
    `npm warn EBADENGINE   required: { node: '${range}' },`,
    "npm warn EBADENGINE   current: { node: 'v20.19.0', npm: '11.19.1' }",
    "npm warn EBADENGINE }",
  ].join("\n");

describe("npm's output at install", () => {
  it("every locked package with an install script is approved or denied in package.json's allowScripts", () => {
    const unreviewed = locked
      .filter((pkg) => pkg.hasInstallScript && manifest.allowScripts?.[pkg.name] === undefined)
      .map((pkg) => `${pkg.name}@${pkg.version}`);
    expect(unreviewed).toEqual([]);
  });

  it("on Node 20, npm warns about the engines of no locked package beyond those the check allows with a reason", () => {
    const warnings = locked
      .filter((pkg) => pkg.engines?.node && oldestNodeMajor(pkg.engines.node) > 20)
      .map((pkg) => engineWarning(pkg.name, pkg.version, pkg.engines!.node!));
    const { code, said } = checkNpmOutput(`${warnings.join("\n")}\n\nadded 461 packages in 42s\n`);
    expect(said).not.toMatch(/would have to read/);
    expect(code).toBe(0);
  });

  it("the check fails on an install-script warning and on the engine warning of a package it does not list", () => {
    const scripts = checkNpmOutput(
      "npm warn install-scripts 1 package has install scripts not yet covered by allowScripts:\n",
    );
    expect(scripts.code).toBe(1);
    const engine = checkNpmOutput(`${engineWarning("commander", "15.1.0", ">=22.12.0")}\n`);
    expect(engine.code).toBe(1);
    expect(engine.said).toMatch(/commander@15\.1\.0/);
  });

  it("the packed package.json has no prepare script, and the clone's comes back byte for byte after the pack", () => {
    const clone = tempDir();
    mkdirSync(join(clone, "scripts"));
    cpSync(join(ROOT, "scripts", "pack-manifest.mjs"), join(clone, "scripts", "pack-manifest.mjs"));
    const original = readFileSync(join(ROOT, "package.json"), "utf8");
    writeFileSync(join(clone, "package.json"), original);
    const script = join(clone, "scripts", "pack-manifest.mjs");

    execFileSync(process.execPath, [script, "strip"]);
    const packed = JSON.parse(readFileSync(join(clone, "package.json"), "utf8"));
    const { prepare, ...otherScripts } = JSON.parse(original).scripts;
    expect(prepare).toBeDefined();
    expect(packed.scripts).toEqual(otherScripts);
    expect({ ...packed, scripts: undefined }).toEqual({ ...JSON.parse(original), scripts: undefined });

    execFileSync(process.execPath, [script, "restore"]);
    expect(readFileSync(join(clone, "package.json"), "utf8")).toBe(original);
  });

  it("package.json strips prepare after the build of a pack and restores it after", () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    expect(scripts.prepack).toMatch(/^npm run build && node scripts\/pack-manifest\.mjs strip$/);
    expect(scripts.postpack).toBe("node scripts/pack-manifest.mjs restore");
  });
});
