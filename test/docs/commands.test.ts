// Every shell command in README.md and docs/*.md runs where its text says: this file runs the blocks marked
// `clone` (in a temp copy of the clone, so that what they write goes there) and checks that no block lacks
// a marker; .ci/package-check.sh runs the `installed` ones against the packed tarball.
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type DocBlock,
  describeFailure,
  documentedBlocks,
  REPO,
  runBlocks,
  runnableScript,
} from "../../scripts/doc-commands.ts";
import { tempDir } from "../temp-dir.ts";

// In a clone after `npm ci`, `npx dramaturg` runs the clone's own bin, which npm reaches by linking the
// clone into its npx cache (and building it once more). Here it is the same command from src/ through tsx
// (bin/dramaturg.js, what `npm run demo` runs), so the test needs no build and writes nothing to npm's
// cache; .ci/package-check.sh runs the real `npx dramaturg` in a clone. `npm ci` has been done: the
// context is a clone after it.
const CLONE_PRELUDE = `
npx() { if [ "$1" = dramaturg ]; then shift; node "${REPO}/bin/dramaturg.js" "$@"; else command npx "$@"; fi; }
npm() { if [ "$1" = ci ]; then return 0; fi; command npm "$@"; }
`;

/** A throwaway clone: its own package.json and examples (which blocks write into), the rest linked (test/ for its fixtures). */
function cloneCopy(): string {
  const dir = tempDir("dramaturg-docs-");
  cpSync(join(REPO, "package.json"), join(dir, "package.json"));
  cpSync(join(REPO, "examples"), join(dir, "examples"), {
    recursive: true,
    filter: (src) => !src.includes(".dramaturg"),
  });
  for (const linked of ["node_modules", "src", "bin", "scripts", "test", "tsconfig.json"])
    symlinkSync(join(REPO, linked), join(dir, linked));
  return dir;
}

const { blocks, problems } = documentedBlocks();
const cloneFiles = [...new Set(blocks.filter((b) => b.context === "clone").map((b) => b.file))];

describe("the documented commands", () => {
  it("every shell block in the README and docs/ says where it runs", () => {
    expect(problems).toEqual([]);
    expect(blocks.filter((b) => b.context === "clone").length).toBeGreaterThan(0);
    expect(blocks.filter((b) => b.context === "installed").length).toBeGreaterThan(0);
  });

  it("a block that is not run says why", () => {
    for (const block of blocks.filter((b) => b.context === "no")) expect(block.reason).toMatch(/\w{3}/);
  });

  for (const file of cloneFiles)
    it(`${file}: its clone commands run in a clone`, { timeout: 120_000 }, () => {
      const mine = blocks.filter((b) => b.file === file && b.context === "clone");
      const runs = runBlocks(mine, {
        cwd: cloneCopy(),
        prelude: CLONE_PRELUDE,
        env: { DRAMATURG_CODE_CACHE: "off", NO_COLOR: "1" },
      });
      const failed = runs.find((r) => r.code !== r.block.exit);
      expect(failed ? describeFailure(failed) : "").toBe("");
      expect(runs).toHaveLength(mine.length);
    });
});

describe("the README and the guides", () => {
  it("the README fits on one screen: 150 lines at most", () => {
    expect(readFileSync(join(REPO, "README.md"), "utf8").trimEnd().split("\n").length).toBeLessThanOrEqual(
      150,
    );
  });

  it("every relative link points at a file that exists, and at one of its headings", () => {
    // GitHub's anchors: the heading in lower case, punctuation dropped, spaces as hyphens.
    const slug = (heading: string) =>
      heading
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\- ]/gu, "")
        .replaceAll(" ", "-");
    // Every page, with or without commands: the design notes and the architecture page link too.
    const pages = readdirSync(join(REPO, "docs"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`);
    const files = [...new Set(["README.md", ...pages])];
    expect(files).toContain("docs/design/performance.md");
    const broken: string[] = [];
    for (const file of files) {
      for (const [, link] of readFileSync(join(REPO, file), "utf8").matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(link!)) continue;
        const [path, anchor] = link!.split("#");
        const target = path ? join(dirname(file), path) : file;
        if (!existsSync(join(REPO, target))) broken.push(`${file}: ${link} (no such file)`);
        else if (anchor && target.endsWith(".md")) {
          const headings = readFileSync(join(REPO, target), "utf8").matchAll(/^#+ (.*)$/gm);
          if (![...headings].some(([, h]) => slug(h!) === anchor))
            broken.push(`${file}: ${link} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("each guide starts with a command that shows its subject, before its first section", () => {
    const guides = [...new Set(blocks.map((b) => b.file))].filter(
      (f) => f.startsWith("docs/") && !f.startsWith("docs/design/"),
    );
    expect(guides.length).toBeGreaterThanOrEqual(8);
    for (const file of guides) {
      const text = readFileSync(join(REPO, file), "utf8");
      const firstSection = text.indexOf("\n## ");
      const firstBlock = text.indexOf("\n```sh");
      expect({
        file,
        shownFirst: firstBlock >= 0 && (firstSection < 0 || firstBlock < firstSection),
      }).toEqual({
        file,
        shownFirst: true,
      });
    }
  });
});

describe("reading the markers", () => {
  function docsIn(readme: string, guide = "# A guide\n"): { blocks: DocBlock[]; problems: string[] } {
    const root = tempDir("dramaturg-docs-");
    mkdirSync(join(root, "docs"));
    writeFileSync(join(root, "README.md"), readme);
    writeFileSync(join(root, "docs/guide.md"), guide);
    return documentedBlocks(root);
  }

  it("a shell block without a marker is a problem naming the file and line", () => {
    const { problems } = docsIn("# Title\n\ntext\n\n```sh\nnpx dramaturg eval\n```\n");
    expect(problems).toEqual([expect.stringMatching(/^README\.md:5: a shell block without a run marker/)]);
  });

  it("commands in a fence without a language are a problem too", () => {
    const { problems } = docsIn("# T\n", "# G\n\n```\nnpx dramaturg eval\n```\n");
    expect(problems).toEqual([
      expect.stringMatching(/^docs\/guide\.md:3: shell commands in a fence without/),
    ]);
  });

  it("a marker gives the context, a reason, a judge and an exit code", () => {
    const { blocks, problems } = docsIn(
      [
        "<!-- run: no (needs a key) -->",
        "```sh\nnpx dramaturg eval --judge openai:x\n```",
        "<!-- run: installed; judge: fixtures:f.json; exit: 1 -->",
        "",
        "```bash\nnpx dramaturg ci\n```",
        "<!-- run: somewhere -->",
        "```sh\nls\n```",
        "<!-- run: no -->",
        "```sh\nls\n```",
      ].join("\n"),
    );
    expect(blocks.map(({ context, reason, judge, exit }) => ({ context, reason, judge, exit }))).toEqual([
      { context: "no", reason: "needs a key", judge: undefined, exit: 0 },
      { context: "installed", reason: undefined, judge: "fixtures:f.json", exit: 1 },
    ]);
    expect(problems).toEqual([
      expect.stringMatching(/README\.md:11: unknown run context "somewhere"/),
      expect.stringMatching(/README\.md:15: .*says why/),
    ]);
  });

  it("a judge marker runs model judges as the fixture judge, without a key or a base URL", () => {
    const block: DocBlock = {
      file: "x.md",
      line: 1,
      context: "clone",
      judge: "fixtures:f.json",
      exit: 0,
      text: [
        "export OPENAI_API_KEY=sk-...",
        "npx dramaturg eval t.json --judge openai:gpt-4o-mini",
        "npx dramaturg eval t.json --judge openai-compatible:q --judge-base-url http://127.0.0.1:11434/v1",
        "npx dramaturg eval t.json --judge fixtures:other.json",
      ].join("\n"),
    };
    expect(runnableScript(block).split("\n")).toEqual([
      "npx dramaturg eval t.json --judge fixtures:f.json",
      "npx dramaturg eval t.json --judge fixtures:f.json",
      "npx dramaturg eval t.json --judge fixtures:other.json",
    ]);
  });

  it("blocks run in order and stop at the first that ends unexpectedly", () => {
    const at = (text: string, exit = 0): DocBlock => ({
      file: "x.md",
      line: 1,
      context: "clone",
      exit,
      text,
    });
    const runs = runBlocks(
      [at("echo one > f"), at("grep -q one f; exit 1", 1), at("false"), at("echo never")],
      {
        cwd: tempDir(),
      },
    );
    expect(runs.map((r) => r.code)).toEqual([0, 1, 1]);
  });
});
