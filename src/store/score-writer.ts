// Buffers verdicts as they arrive and writes them in multi-row batches: every `batchSize` rows or
// `flushIntervalMs` after the first unwritten one, so a crash loses at most that interval's verdicts.
import { setImmediate as nextTurn } from "node:timers/promises";
import { StoreError } from "../core/index.ts";
import { isUniqueViolation, SCORE_BATCH, type ScoreInput } from "./scores.ts";

/**
 * Writes one batch in one step, all or nothing; returns rows written. With `onlyNew`, a key already stored
 * fails the batch with a unique violation (SQLSTATE 23505) instead of being replaced. Each backend has one.
 */
export type ScoreBatchWriter = (
  rows: readonly ScoreInput[],
  options?: { onlyNew?: boolean },
) => Promise<number>;

export interface ScoreWriterOptions {
  /** Rows per INSERT; a full buffer is written at once and `write` waits for it. Default 1000. */
  batchSize?: number;
  /**
   * Longest a verdict waits in the buffer. Default 200 ms. `0` is group commit: rows are written as
   * soon as no batch is being written, and rows that arrive meanwhile go together in the next batch —
   * so a crash loses at most the batch in progress, and throughput stays high under load.
   */
  flushIntervalMs?: number;
  /**
   * The rows are a new evaluation's, whose keys cannot be stored yet: batches go as plain INSERTs, which
   * skip the conflict check of every row. Should a key be stored after all (a verdict written twice), the
   * batch is written again the usual way, and so is every later batch.
   */
  newKeys?: boolean;
}

export interface ScoreWriter {
  /**
   * Buffers rows; resolves once they are buffered, or written when the buffer filled (backpressure).
   * With `durable`, resolves only once these rows are committed.
   */
  write(rows: ScoreInput | readonly ScoreInput[], options?: { durable?: boolean }): Promise<void>;
  /** Writes everything buffered so far. */
  flush(): Promise<void>;
  /** Flushes and stops; later writes are refused. */
  close(): Promise<void>;
  /** Rows handed to the database so far. */
  readonly written: number;
  /** Rows buffered and not yet written. */
  readonly buffered: number;
}

export function createScoreWriter(
  writeScoreBatch: ScoreBatchWriter,
  { batchSize = SCORE_BATCH, flushIntervalMs = 200, newKeys = false }: ScoreWriterOptions = {},
): ScoreWriter {
  let onlyNew = newKeys;
  const writeBatch = async (batch: readonly ScoreInput[]) => {
    if (onlyNew) {
      try {
        return await writeScoreBatch(batch, { onlyNew });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        onlyNew = false;
      }
    }
    return await writeScoreBatch(batch);
  };
  let buffer: ScoreInput[] = [];
  let written = 0;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  // Batches are written one after another, in order; a failed batch fails every later call.
  let chain: Promise<void> = Promise.resolve();
  let failure: unknown;
  let scheduled = false;

  /** Writes a batch queued on the chain, unless an earlier one failed; a failure is kept for `check`. */
  let writing = 0;
  const commit = async (batch: readonly ScoreInput[]) => {
    if (failure !== undefined) return;
    writing++;
    try {
      await writeBatch(batch);
      written += batch.length;
    } catch (error) {
      failure = error;
    } finally {
      writing--;
    }
  };

  // Group commit: one batch queued behind the one being written takes everything buffered by then.
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    // With nothing being written, the rows go at once: waiting would only hold their workers back (and,
    // with every worker waiting for the same batch, fall them into step).
    const idle = writing === 0;
    chain = chain.then(async () => {
      // Answers that arrived while the last batch was written may still be queued as I/O callbacks
      // (their judge calls, the database's reply): one turn of the event loop lets them join this batch.
      if (!idle) await nextTurn();
      scheduled = false;
      if (failure !== undefined || buffer.length === 0) return;
      const batch = buffer;
      buffer = [];
      await commit(batch);
    });
  };

  const check = () => {
    if (failure !== undefined)
      throw new StoreError("an earlier batch of scores could not be written", { cause: failure });
  };

  const drain = (): Promise<void> => {
    if (timer) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (buffer.length === 0) return chain;
    const batch = buffer;
    buffer = [];
    chain = chain.then(() => commit(batch));
    return chain;
  };

  return {
    async write(rows, { durable = false } = {}) {
      check();
      if (closed) throw new StoreError("the score writer is closed");
      const list: readonly ScoreInput[] = Array.isArray(rows) ? rows : [rows as ScoreInput];
      for (const row of list) {
        buffer.push(row);
        if (buffer.length >= batchSize) await drain();
      }
      if (durable) {
        // The batch queued now (or already queued) takes these rows: wait until it is committed.
        if (buffer.length > 0) {
          if (flushIntervalMs === 0) schedule();
          else await drain();
        }
        await chain;
      } else if (flushIntervalMs === 0) {
        if (buffer.length > 0) schedule();
      } else if (buffer.length > 0 && timer === undefined) {
        timer = setTimeout(() => void drain(), flushIntervalMs);
        // A pending timer alone should not keep the process alive; close() flushes what it holds.
        timer.unref();
      }
      check();
    },
    async flush() {
      await drain();
      check();
    },
    async close() {
      closed = true;
      await drain();
      check();
    },
    get written() {
      return written;
    },
    get buffered() {
      return buffer.length;
    },
  };
}
