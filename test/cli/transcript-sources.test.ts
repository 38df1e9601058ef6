// The files eval and import read, told apart once: a transcript that declares its format in its first bytes is
// left to the transcript reader; one whose format comes later is read whole once to tell, and what was read is
// what is evaluated; a file that is neither JSON nor JSONL is named as a transcript, by the transcript reader.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readTranscriptSources } from "../../src/cli/transcript-sources.ts";
import { parseTranscript } from "../../src/core/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { ROOT } from "./run-cli.ts";

const DEMO = `${ROOT}examples/ensemble/transcript.json`;
const LANGFUSE = `${ROOT}test/fixtures/langfuse/hand-written-support.json`;

describe("readTranscriptSources", () => {
  const folder = useTempDir("transcript-sources-");
  const demo = JSON.parse(readFileSync(DEMO, "utf8")) as Record<string, unknown>;

  it("leaves transcripts that declare their format to the caller's reader, globs expanded once", async () => {
    expect(await readTranscriptSources([`${ROOT}examples/ensemble/transcript.js*`])).toEqual({
      files: [DEMO],
    });
  });

  /** The demo's agents, each with a long occupation, so that the format comes after the first 4 KB. */
  const agents = (demo.agents as { persona: { occupation: string } }[]).map((a) => ({
    ...a,
    persona: { ...a.persona, occupation: a.persona.occupation.padEnd(5000, ".") },
  }));

  it("keeps what it read of a transcript whose format comes late: the transcript the file is", async () => {
    const { format, ...rest } = demo;
    const file = join(folder(), "late.json");
    writeFileSync(file, JSON.stringify({ ...rest, agents, format }));
    const read = await readTranscriptSources([file]);
    expect(read.files).toEqual([file]);
    expect(read.transcript).toEqual(parseTranscript(readFileSync(file, "utf8"), file));
    expect(read.transcript?.messages).toHaveLength((demo.messages as unknown[]).length);
  });

  it("reads a JSONL transcript whose header names its format late, and names a file that is not JSON", async () => {
    const { messages, format, ...header } = demo as { messages: unknown[]; format: string };
    const jsonl = join(folder(), "late.jsonl");
    const lines = [{ ...header, agents, format }, ...messages];
    writeFileSync(jsonl, lines.map((l) => JSON.stringify(l)).join("\n"));
    expect((await readTranscriptSources([jsonl])).transcript?.messages).toHaveLength(messages.length);
    const broken = join(folder(), "broken.json");
    writeFileSync(broken, "{ not json");
    await expect(readTranscriptSources([broken])).rejects.toThrow(/broken\.json/);
  });

  it("imports a file that is not a transcript, beside one that is", async () => {
    const read = await readTranscriptSources([DEMO, LANGFUSE]);
    expect(read.files).toEqual([DEMO, LANGFUSE]);
    const senders = new Set(read.transcript?.messages.map((m) => m.sender));
    expect(senders.has("support-agent")).toBe(true);
    expect(senders.has("ines")).toBe(true);
  });
});
