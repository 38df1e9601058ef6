// What an importer is: a format it recognises in a parsed file, and how it turns it into sessions.
import type { SessionInput } from "../session-format.ts";

export interface ImportOptions {
  /** The file, for messages. */
  file: string;
  /** OpenAI-format tools given apart from the file (`--tools FILE`). */
  tools?: {
    type?: "function";
    function: { name: string; description?: string; parameters?: Record<string, unknown> };
  }[];
  /** τ-bench records, τ²-bench simulations and Inspect samples (their first score, as Inspect's value_to_float reads it): the reward at which one counts as a success (default 1, their rule; Inspect's "C"). */
  successReward?: number;
}

export interface Imported {
  sessions: SessionInput[];
  /** What could not be mapped, said rather than guessed. */
  notes: string[];
}

export interface SessionImporter {
  /** The `--from` name. */
  name: string;
  /** Whether a parsed file is in this format. */
  detect(value: unknown): boolean;
  import(value: unknown, options: ImportOptions): Imported;
}
