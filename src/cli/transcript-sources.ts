// The files eval, baseline, ci, record and import read as a transcript: a Dramaturg transcript as it is; any other
// file (a Langfuse or LangSmith export, an Inspect log, a chat log…) through the session importers, then turned
// into a transcript. The importers load only when a file is not a transcript: the usual start-up pays nothing.
import { closeSync, openSync, readSync } from "node:fs";
import {
  expandFilePatterns,
  mergeTranscripts,
  readInputFile,
  readTranscriptFile,
  TRANSCRIPT_FORMAT,
  type Transcript,
} from "../core/index.ts";

const DECLARED = /"format"\s*:\s*"dramaturg\.transcript\//;

/** The first bytes of a file, or undefined when it cannot be read (the reader then says why). */
function head(file: string, bytes = 4096): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const buffer = Buffer.alloc(bytes);
    return buffer.toString("utf8", 0, readSync(fd, buffer, 0, bytes, 0));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A parsed document (or JSONL header line) that is, or means to be, a transcript. */
function looksLikeTranscript(v: unknown): boolean {
  if (!isObject(v)) return false;
  if (typeof v.format === "string") return v.format.startsWith("dramaturg.transcript");
  return Array.isArray(v.agents) && !("turns" in v) && (Array.isArray(v.messages) || !("messages" in v));
}

/**
 * Whether a file is a Dramaturg transcript: it declares the format (JSON, or a JSONL header line), or has a
 * transcript's shape without saying so. A file that is not JSON counts as one, so the transcript reader names
 * the line that is wrong; an Inspect `.eval` archive never does.
 */
export function isTranscriptFile(file: string): boolean {
  if (file.endsWith(".eval")) return false;
  const start = head(file);
  if (start === undefined || DECLARED.test(start)) return true;
  const text = readInputFile(file, "the transcript");
  try {
    return looksLikeTranscript(JSON.parse(text));
  } catch {
    const first = text.split("\n").find((line) => line.trim() !== "");
    try {
      return first === undefined || looksLikeTranscript(JSON.parse(first));
    } catch {
      return true;
    }
  }
}

/**
 * The transcript of files that are not all Dramaturg transcripts (or all read as `from`): transcripts as they
 * are, the others imported as sessions and turned into one transcript, merged; what each file was read as is
 * printed on stderr. Undefined when every file is a transcript: the caller reads them as it always has.
 */
export async function importedTranscript(
  patterns: readonly string[],
  { from }: { from?: string } = {},
): Promise<{ transcript: Transcript; files: string[] } | undefined> {
  const files = expandFilePatterns(patterns, { noun: "transcript file" });
  const imported = from ? files : files.filter((f) => !isTranscriptFile(f));
  if (imported.length === 0) return undefined;
  const { readSessionsTranscript } = await import("../sessions/index.ts");
  const read = readSessionsTranscript(imported, { from });
  for (const s of read.sources) {
    process.stderr.write(
      `read ${s.file} as ${s.from}: ${s.sessions} session${s.sessions === 1 ? "" : "s"}\n`,
    );
    for (const note of s.notes) process.stderr.write(`note: ${s.file}: ${note}\n`);
  }
  for (const note of read.notes) process.stderr.write(`note: ${note}\n`);
  const { agents, messages } = read.transcript;
  process.stderr.write(
    `as a ${TRANSCRIPT_FORMAT}: ${agents.length} agent${agents.length === 1 ? "" : "s"} with a persona (${agents.map((a) => a.id).join(", ")}), ${messages.length} messages\n`,
  );
  const transcripts = files
    .filter((f) => !imported.includes(f))
    .map((file) => ({ file, transcript: readTranscriptFile(file) }));
  const transcript = mergeTranscripts([
    ...transcripts,
    { file: imported.join(", "), transcript: read.transcript },
  ]);
  return { transcript, files };
}
