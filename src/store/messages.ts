// Transcript messages stored by `dramaturg import`, so later evaluations can read from the store.
import type { Message } from "../core/index.ts";
import { iso } from "./columns.ts";
import type { Queryable } from "./db.ts";

/** A stored message: the transcript's fields plus the import batch it came in. */
export interface MessageRow {
  source: string;
  id: string;
  sender: string;
  channel: string;
  recipient?: string;
  text: string;
  at: string;
  /** Its ids in the tracing tool it was imported from, when it came with them. */
  source_ids?: Record<string, string>;
}

export interface MessageQuery {
  /** Messages this agent (or other sender) sent. */
  agent?: string;
  channel?: string;
  source?: string;
  /** Inclusive ISO 8601 bounds on `at`. */
  from?: string;
  to?: string;
  limit?: number;
}

export interface MessageRepository {
  /**
   * Stores messages under an import batch name. Idempotent: a message already stored under the same
   * source and id is left as it is. Returns how many were new.
   */
  import(source: string, messages: readonly Message[]): Promise<{ inserted: number; skipped: number }>;
  /** Messages in time order (then by source and id). */
  query(query?: MessageQuery): Promise<MessageRow[]>;
}

/** Rows per INSERT: one jsonb parameter each, so the size is about memory, not parameter limits. */
const IMPORT_BATCH = 5_000;

interface Raw {
  source: string;
  id: string;
  sender: string;
  channel: string;
  recipient: string | null;
  text: string;
  at: Date | string;
  source_ids: Record<string, string> | null;
}

export function messageRepository(db: Queryable): MessageRepository {
  return {
    async import(source, messages) {
      let inserted = 0;
      for (let i = 0; i < messages.length; i += IMPORT_BATCH) {
        const batch = messages.slice(i, i + IMPORT_BATCH).map((m) => ({
          id: m.id,
          sender: m.sender,
          channel: m.channel,
          recipient: m.recipient ?? null,
          text: m.text,
          at: m.at,
          source_ids: m.source_ids ?? null,
        }));
        const result = await db.query(
          `INSERT INTO run_messages (source, id, sender, channel, recipient, text, at, source_ids)
           SELECT $1, x.id, x.sender, x.channel, x.recipient, x.text, x.at, x.source_ids
             FROM jsonb_to_recordset($2::jsonb)
                  AS x(id text, sender text, channel text, recipient text, text text, at timestamptz,
                       source_ids jsonb)
           ON CONFLICT (source, id) DO NOTHING`,
          [source, JSON.stringify(batch)],
        );
        inserted += result.rowCount;
      }
      return { inserted, skipped: messages.length - inserted };
    },
    async query({ agent, channel, source, from, to, limit } = {}) {
      const where: string[] = [];
      const params: unknown[] = [];
      const add = (sql: string, value: unknown) => {
        params.push(value);
        where.push(sql.replace("?", `$${params.length}`));
      };
      if (agent !== undefined) add("sender = ?", agent);
      if (channel !== undefined) add("channel = ?", channel);
      if (source !== undefined) add("source = ?", source);
      if (from !== undefined) add("at >= ?::timestamptz", from);
      if (to !== undefined) add("at <= ?::timestamptz", to);
      let sql = "SELECT source, id, sender, channel, recipient, text, at, source_ids FROM run_messages";
      if (where.length > 0) sql += ` WHERE ${where.join(" AND ")}`;
      sql += " ORDER BY at, source, id";
      if (limit !== undefined) {
        params.push(limit);
        sql += ` LIMIT $${params.length}`;
      }
      const result = await db.query<Raw>(sql, params);
      return result.rows.map(({ recipient, at, source_ids, ...rest }) => ({
        ...rest,
        ...(recipient === null ? {} : { recipient }),
        at: iso(at),
        ...(source_ids === null ? {} : { source_ids }),
      }));
    },
  };
}
