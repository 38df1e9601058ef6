// Senders of a transcript as eval reads them: a mistyped agent id is refused before anything is written; a
// name far from every agent is read as someone outside the ensemble, and said once if it is not marked so.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../temp-dir.ts";
import { cli, DEMO, ROOT } from "./run-cli.ts";

const folder = useTempDir("dramaturg-senders-");
const example = JSON.parse(readFileSync(`${ROOT}examples/ensemble/transcript.json`, "utf8"));

/** The example transcript with one sender renamed, written into `dir`; returns its path and the message index. */
function renamed(dir: string, from: string, to: string): { file: string; index: number } {
  const transcript = structuredClone(example);
  const index = transcript.messages.findLastIndex((m: { sender: string }) => m.sender === from);
  transcript.messages[index].sender = to;
  const file = join(dir, "transcript.json");
  writeFileSync(file, JSON.stringify(transcript, null, 2));
  return { file, index };
}

describe("transcript senders in eval", () => {
  it("a sender a typo away from an agent id exits 2 naming the file, the message and the agent meant, writing nothing", async () => {
    const dir = join(folder(), "typo");
    mkdirSync(dir);
    const { index } = renamed(dir, "dov", "dovv");
    const r = await cli(["eval", "transcript.json", ...DEMO.slice(1)], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `transcript.json:messages[${index}].sender: sender "dovv" is not an agent id; did you mean "dov"?`,
    );
    expect(readdirSync(dir)).toEqual(["transcript.json"]);
  });

  it("an unmarked sender far from every agent is evaluated as a stimulus and warned about once on stderr", async () => {
    const { file } = renamed(folder(), "listener:june", "june");
    const r = await cli(["eval", file, ...DEMO.slice(1), "--db", "memory://"]);
    expect(r.code).toBe(0);
    expect(r.stderr.match(/warning: sender "june" is not an agent id/g)).toHaveLength(1);
  });
});
