// Transcripts from files: paths and globs, several files merged into one ensemble's transcript.
import { InputError, readInputFile } from "./errors.ts";
import { expandFilePatterns } from "./file-patterns.ts";
import { contentHash, stableStringify } from "./hash.ts";
import { type Message, parseTranscript, TRANSCRIPT_FORMAT, type Transcript } from "./transcript.ts";

/** One transcript file (JSON, or JSONL with a header line), validated. */
export function readTranscriptFile(file: string): Transcript {
  return parseTranscript(readInputFile(file, "the transcript"), file);
}

/**
 * Reads every source (a path or a glob: {@link expandFilePatterns}) and merges them into one transcript:
 * episodes of the same ensemble. An agent defined differently in two files, or a message id used twice,
 * is an error naming both files.
 */
export function loadTranscripts(patterns: readonly string[]): { transcript: Transcript; files: string[] } {
  const files = expandFilePatterns(patterns, { noun: "transcript file" });
  if (files.length === 1) return { transcript: readTranscriptFile(files[0]!), files };
  return {
    transcript: mergeTranscripts(files.map((file) => ({ file, transcript: readTranscriptFile(file) }))),
    files,
  };
}

/**
 * Transcripts read apart merged into one: episodes of the same ensemble. An agent defined differently in two of
 * them, or a message id used twice, is an error naming both files.
 */
export function mergeTranscripts(parts: readonly { file: string; transcript: Transcript }[]): Transcript {
  if (parts.length === 1) return parts[0]!.transcript;
  const agents = new Map<string, { agent: Transcript["agents"][number]; file: string }>();
  const messages = new Map<string, { message: Message; file: string }>();
  const channels = new Map<string, NonNullable<Transcript["channels"]>[number]>();
  for (const { file, transcript: t } of parts) {
    for (const agent of t.agents) {
      const seen = agents.get(agent.id);
      if (seen && stableStringify(seen.agent) !== stableStringify(agent))
        throw new InputError(`agent "${agent.id}" is defined differently here and in ${seen.file}`, { file });
      agents.set(agent.id, { agent, file });
    }
    for (const message of t.messages) {
      const seen = messages.get(message.id);
      if (seen) throw new InputError(`message id "${message.id}" is also used in ${seen.file}`, { file });
      messages.set(message.id, { message, file });
    }
    for (const c of t.channels ?? []) channels.set(c.id, c);
  }
  const merged: Transcript = {
    format: TRANSCRIPT_FORMAT,
    agents: [...agents.values()].map((a) => a.agent),
    messages: [...messages.values()]
      .map((m) => m.message)
      .sort((a, b) => Date.parse(a.at) - Date.parse(b.at)),
  };
  if (channels.size) merged.channels = [...channels.values()];
  return merged;
}

/** Identifies a transcript's content: a resumed evaluation checks it is judging the same messages. */
export function transcriptHash(transcript: Transcript): string {
  return contentHash(transcript);
}
