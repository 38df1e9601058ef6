// The files eval, baseline, ci, record and import read as a transcript: a Dramaturg transcript as it is; any other
// file (a Langfuse or LangSmith export, an Inspect log, a chat log…) through the session importers, then turned
// into a transcript. The importers load only when a file is not a transcript: the usual start-up pays nothing.
import { closeSync, openSync, readSync } from "node:fs";
import {
  expandFilePatterns,
  mergeTranscripts,
  parseTranscript,
  parseTranscriptValue,
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

function headerLooksLikeTranscript(line: string): boolean {
  try {
    return looksLikeTranscript(JSON.parse(line));
  } catch {
    return true;
  }
}

/**
 * What a file is: a Dramaturg transcript — it declares the format (JSON, or a JSONL header line), or has a
 * transcript's shape without saying so — or something to import. A file that is not JSON counts as a transcript,
 * so the transcript reader names the line that is wrong; an Inspect `.eval` archive never does. A file that had
 * to be read whole to tell keeps what was read (`transcript`), so it is not parsed again.
 */
function classify(file: string): { transcript: boolean; read?: Transcript } {
  if (file.endsWith(".eval")) return { transcript: false };
  const start = head(file);
  if (start === undefined || DECLARED.test(start)) return { transcript: true };
  const text = readInputFile(file, "the transcript");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // JSONL: its header line tells; a line that is not JSON either is left to the transcript reader to name.
    const first = text.split("\n").find((line) => line.trim() !== "");
    if (first !== undefined && !headerLooksLikeTranscript(first)) return { transcript: false };
    return { transcript: true, read: parseTranscript(text, file) };
  }
  return looksLikeTranscript(value)
    ? { transcript: true, read: parseTranscriptValue(value, file) }
    : { transcript: false };
}

/**
 * The files eval, import… name, read once: the patterns expanded, and each file told apart (a transcript, or to
 * import; all of them imported when `from` names a format). `transcript` is what was read: undefined when every
 * file is a transcript that declares its format — the caller hands `files` to the reader it always used, which
 * reads each once — else the transcripts and the imported files turned into one transcript, merged; what each
 * imported file was read as is printed on stderr.
 */
export async function readTranscriptSources(
  patterns: readonly string[],
  { from }: { from?: string } = {},
): Promise<{ transcript?: Transcript; files: string[] }> {
  const files = expandFilePatterns(patterns, { noun: "transcript file" });
  const kinds = new Map(files.map((f) => [f, from ? { transcript: false } : classify(f)]));
  const imported = files.filter((f) => !kinds.get(f)!.transcript);
  if (imported.length === 0 && files.every((f) => kinds.get(f)!.read === undefined)) return { files };
  const transcripts = files
    .filter((f) => kinds.get(f)!.transcript)
    .map((file) => ({ file, transcript: kinds.get(file)!.read ?? readTranscriptFile(file) }));
  if (imported.length === 0) return { transcript: mergeTranscripts(transcripts), files };
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
  const transcript = mergeTranscripts([
    ...transcripts,
    { file: imported.join(", "), transcript: read.transcript },
  ]);
  return { transcript, files };
}
