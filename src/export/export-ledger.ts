// The export ledger: which scores already arrived where, each with a hash of what was sent, kept in a JSON file
// beside the store. A re-run after a failure sends only what did not arrive (or what changed since), and an
// export run twice sends nothing the second time. Written after every batch, by rename, so a crash loses at most
// the batch in flight (which the tools' upserts absorb when it is sent again).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { contentHash, InputError } from "../core/index.ts";

export const EXPORT_LEDGER_FORMAT = "dramaturg.export-ledger/v1";

const LedgerSchema = z
  .object({
    format: z.literal(EXPORT_LEDGER_FORMAT),
    /** Per destination (`langfuse https://cloud.langfuse.com`): score id → hash of what was sent. */
    sent: z.record(z.string(), z.record(z.string(), z.string())),
  })
  .strict();

export class ExportLedger {
  private readonly sent: Record<string, Record<string, string>>;

  private constructor(
    /** The file, or undefined for a ledger kept in memory only (tests, `--no-ledger`). */
    readonly file: string | undefined,
    sent: Record<string, Record<string, string>>,
  ) {
    this.sent = sent;
  }

  /** Reads the ledger at `file` (an empty one when it does not exist yet); a damaged file is an InputError. */
  static open(file: string | undefined): ExportLedger {
    if (file === undefined) return new ExportLedger(undefined, {});
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return new ExportLedger(file, {});
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new InputError("the export ledger is not JSON; delete it to send every score again", { file });
    }
    const result = LedgerSchema.safeParse(parsed);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      throw new InputError(`${issue.message}; expected a ${EXPORT_LEDGER_FORMAT} ledger`, {
        file,
        place: issue.path.join(".") || undefined,
      });
    }
    return new ExportLedger(file, result.data.sent);
  }

  /** The hash a payload is recorded under. */
  static hashOf(payload: unknown): string {
    return contentHash(payload);
  }

  /** Whether this payload already arrived at this destination under this id. */
  has(destination: string, id: string, hash: string): boolean {
    return this.sent[destination]?.[id] === hash;
  }

  /** Whether any of these scores arrived at this destination (whatever was sent). */
  sentAny(destination: string, ids: Iterable<string>): boolean {
    const sent = this.sent[destination];
    if (!sent) return false;
    for (const id of ids) if (id in sent) return true;
    return false;
  }

  mark(destination: string, id: string, hash: string): void {
    this.sent[destination] ??= {};
    this.sent[destination][id] = hash;
  }

  /** Writes the ledger (nothing for an in-memory one). */
  save(): void {
    if (this.file === undefined) return;
    mkdirSync(dirname(this.file), { recursive: true });
    const sorted = Object.fromEntries(
      Object.keys(this.sent)
        .sort()
        .map((d) => [
          d,
          Object.fromEntries(Object.entries(this.sent[d]!).sort(([a], [b]) => (a < b ? -1 : 1))),
        ]),
    );
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify({ format: EXPORT_LEDGER_FORMAT, sent: sorted }, null, 2)}\n`);
    renameSync(temporary, this.file);
  }
}
