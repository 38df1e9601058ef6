// What a reader of the guides with only the installed package needs: the examples the commands use ship in
// it, nothing shipped is announced as coming, one test can be run alone, and the words a guide leans on
// (the seed, pass^k, the 0–1 scale) are explained where the guide first uses them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { documentedBlocks, documentFiles, REPO } from "../../scripts/doc-commands.ts";

const read = (file: string) => readFileSync(join(REPO, file), "utf8");
/** A guide's prose: its fenced blocks left out. */
const prose = (file: string) => read(file).replace(/^```[\s\S]*?^```$/gm, "");
const guides = documentFiles().filter((f) => f.startsWith("docs/"));

describe("the guides", () => {
  it("use in their installed and not-run commands only example folders that ship in the package", () => {
    const files: string[] = JSON.parse(read("package.json")).files;
    const used = new Map<string, string>();
    for (const block of documentedBlocks().blocks)
      if (block.context !== "clone")
        for (const [folder] of block.text.matchAll(/examples\/[\w-]+/g))
          used.set(folder, `${block.file}:${block.line}`);
    expect(used.size).toBeGreaterThan(0);
    for (const [folder, where] of used) expect(files, `${folder} (${where})`).toContain(folder);
  });

  it("never announce as coming, or as missing from the package, what ships", () => {
    for (const file of guides)
      expect(prose(file), file).not.toMatch(/\b(are|is) coming\b|not in the package yet/);
  });

  it("development.md shows how to run one test file and one test by its name", () => {
    const text = read("docs/development.md");
    expect(text).toMatch(/^npx vitest run test\/\S+\.test\.ts$/m);
    expect(text).toMatch(/^npx vitest run test\/\S+\.test\.ts -t "[^"]+"$/m);
  });

  it("say what the seed is where they first speak of it", () => {
    for (const file of guides) {
      const text = prose(file);
      const first = /\bthe seed\b|\bseed's\b|agent-eval seed\b/.exec(text);
      if (!first) continue;
      expect(text.slice(first.index, first.index + 200), file).toMatch(/design document/);
    }
  });

  it("say what pass^k is where they first use it", () => {
    for (const file of guides) {
      const text = prose(file);
      const at = text.indexOf("pass^k");
      if (at < 0) continue;
      expect(text.slice(at, at + 200), file).toMatch(/the chance that k \w+ .* all (pass|succeed)/);
    }
  });

  it("say, where they first give a 0–1 score, that it is not the persona dimensions' 0–9", () => {
    for (const file of guides) {
      const text = prose(file);
      const at = text.search(/\b0–1\b/);
      if (at < 0) continue;
      expect(text.slice(Math.max(0, at - 100), at + 150), file).toMatch(/0–9/);
    }
  });
});
