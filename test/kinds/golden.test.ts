// The goldens of every stored kind's read-back: generated at the commit before the kind registry (the
// experiment kind's when it joined it; UPDATE_GOLDENS=1 writes them) and compared byte for byte, so that the
// registry changed no output.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../cli/run-cli.ts";
import { useTempDir } from "../temp-dir.ts";
import { storedOutputs } from "./stored-outputs.ts";

const GOLDENS = join(ROOT, "test/fixtures/kinds-golden");
const dir = useTempDir("dramaturg-golden-");
let outputs: Map<string, string>;

beforeAll(async () => {
  outputs = await storedOutputs(join(dir(), "store"));
  if (process.env.UPDATE_GOLDENS) {
    mkdirSync(GOLDENS, { recursive: true });
    for (const [name, text] of outputs) writeFileSync(join(GOLDENS, name), text);
  }
}, 120_000);

describe("each stored kind reads back as it did before the registry", () => {
  it("writes every golden and no other output", () => {
    expect([...outputs.keys()].sort()).toEqual(readdirSync(GOLDENS).sort());
  });
  for (const name of readdirSync(GOLDENS).sort())
    it(`${name} is byte-identical`, () => {
      expect(outputs.get(name)).toBe(readFileSync(join(GOLDENS, name), "utf8"));
    });
});
