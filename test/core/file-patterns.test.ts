// The files a user's paths and globs name: braces and globstars through tinyglobby, node_modules and .git
// walked past unless named, a symlink loop gone round never, each file once, a typo answered with the
// nearest name.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expandFilePatterns, InputError, loadTranscripts } from "../../src/core/index.ts";
import { tempDir } from "../temp-dir.ts";

const noun = "transcript file";

/** A folder with these files (each `{}` unless given), and these symlinks (path → target). */
function tree(files: Record<string, string | null>, links: Record<string, string> = {}): string {
  const root = tempDir("dramaturg-patterns-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text ?? "{}");
  }
  for (const [path, target] of Object.entries(links)) symlinkSync(target, join(root, path));
  return root;
}

/** The InputError a call throws, as its message. */
function failure(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (InputError.isInstance(error)) return error.message;
    throw error;
  }
  throw new Error("expected an InputError");
}

describe("expandFilePatterns", () => {
  it("a globstar over a folder with a link to its parent lists each file once, by its own name", () => {
    const root = tree({ "a/one.json": null, "a/b/two.json": null }, { "a/b/up": ".." });
    expect(expandFilePatterns([join(root, "a/**/*.json")], { noun })).toEqual([
      join(root, "a/b/two.json"),
      join(root, "a/one.json"),
    ]);
  });

  it("a link to an ancestor above the pattern's folder brings in nothing from outside it", () => {
    const root = tree({ "a/one.json": null, "outside/x.json": null }, { "a/top": ".." });
    expect(expandFilePatterns([join(root, "a/**/*.json")], { noun })).toEqual([join(root, "a/one.json")]);
  });

  it("a link to a folder elsewhere is followed, and a file reached by two names comes once", () => {
    const root = tree({ "a/one.json": null, "shared/s.json": null }, { "a/shared": "../shared" });
    expect(expandFilePatterns([join(root, "a/**/*.json")], { noun })).toEqual([
      join(root, "a/one.json"),
      join(root, "a/shared/s.json"),
    ]);
    expect(expandFilePatterns([join(root, "**/*.json")], { noun })).toEqual([
      join(root, "a/one.json"),
      join(root, "shared/s.json"),
    ]);
  });

  it("a brace pattern names each of its folders", () => {
    const root = tree({ "t/a/x.json": null, "t/b/x.json": null, "t/c/x.json": null });
    expect(expandFilePatterns([join(root, "t/{a,b}/x.json")], { noun })).toEqual([
      join(root, "t/a/x.json"),
      join(root, "t/b/x.json"),
    ]);
  });

  it("a globstar does not walk into node_modules or .git, unless the pattern names them", () => {
    const root = tree({
      "t/x.json": null,
      "node_modules/pkg/n.json": null,
      "t/node_modules/m.json": null,
      ".git/g.json": null,
    });
    expect(expandFilePatterns([join(root, "**/*.json")], { noun })).toEqual([join(root, "t/x.json")]);
    expect(expandFilePatterns([join(root, "node_modules/**/*.json")], { noun })).toEqual([
      join(root, "node_modules/pkg/n.json"),
    ]);
  });

  it("a pattern relative to the working folder, and a file named twice, come once in the order given", () => {
    const root = tree({ "t/a.json": null, "t/b.json": null });
    const cwd = process.cwd();
    process.chdir(root);
    try {
      expect(expandFilePatterns(["t/b.json", "t/*.json"], { noun })).toEqual([
        "t/b.json",
        join(root, "t/a.json"),
      ]);
    } finally {
      process.chdir(cwd);
    }
  });

  it("a file whose name has glob characters is that file", () => {
    const root = tree({ "t/notes [old].json": null, "t/notes o.json": null });
    expect(expandFilePatterns([join(root, "t/notes [old].json")], { noun })).toEqual([
      join(root, "t/notes [old].json"),
    ]);
  });

  it("a glob that matches nothing is an InputError naming the pattern", () => {
    const root = tree({ "t/a.yml": null });
    const pattern = join(root, "t/*.json");
    expect(failure(() => expandFilePatterns([pattern], { noun }))).toBe(
      `${pattern}: no transcript file matches this pattern`,
    );
  });

  it("a missing file a typo away from one in its folder gets the nearest name, as written", () => {
    const root = tree({ "transcripts/example.json": null, "transcripts/other.json": null });
    const cwd = process.cwd();
    process.chdir(root);
    try {
      expect(failure(() => expandFilePatterns(["transcripts/exampel.json"], { noun }))).toBe(
        "transcripts/exampel.json: no such transcript file; did you mean transcripts/example.json?",
      );
      expect(failure(() => expandFilePatterns(["./transcripts/exmple.json"], { noun }))).toBe(
        "./transcripts/exmple.json: no such transcript file; did you mean ./transcripts/example.json?",
      );
    } finally {
      process.chdir(cwd);
    }
  });

  it("a missing file with no name near it, or in no folder, is only said to be missing", () => {
    const root = tree({ "transcripts/example.json": null, "transcripts/sub/exampel.jsonl": null });
    for (const path of [join(root, "transcripts/ensemble.json"), join(root, "nowhere/example.json")])
      expect(failure(() => expandFilePatterns([path], { noun }))).toBe(`${path}: no such transcript file`);
  });
});

describe("loadTranscripts", () => {
  const transcript = (id: string) =>
    JSON.stringify({
      format: "dramaturg.transcript/v1",
      agents: [{ id: "a", name: "A", persona: "calm" }],
      messages: [{ id, sender: "a", channel: "c", text: "hi", at: "2026-03-01T09:00:00Z" }],
    });

  it("merges the files of a glob over a folder that links to its parent, each read once", () => {
    const root = tree(
      { "a/one.json": transcript("m1"), "a/b/two.json": transcript("m2") },
      { "a/b/up": ".." },
    );
    const { transcript: merged, files } = loadTranscripts([join(root, "a/**/*.json")]);
    expect(files).toEqual([join(root, "a/b/two.json"), join(root, "a/one.json")]);
    expect(merged.messages.map((m) => m.id).sort()).toEqual(["m1", "m2"]);
  });
});
