// PGlite on a thread of its own, for pglite-db.ts. Plain JavaScript, so that it loads the same way under
// every runner (tsx, vitest, a bare node). Each message {id, op, ...} is answered once, with {id, result}
// or {id, error}. PGlite itself runs one statement at a time and holds plain statements back while a
// transaction is open, as it does on a single thread.
import { parentPort } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";

/** @type {PGlite | undefined} */
let pg;
/** Per-query serializers (binary arrays), made once PGlite is open. */
let serializers;
/** Open transactions by number: PGlite's transaction object, how to end it, and its outcome. */
const transactions = new Map();

// Bulk parameters (one array per column, thousands of elements) go in PostgreSQL's binary array format:
// PGlite sends a text array as a literal it builds and measures character by character in JavaScript,
// which cost more than PostgreSQL's reading of it. Flat arrays of text, integers and booleans only;
// anything else goes the default way.
const TEXT = 25;
const INT4 = 23;
const BOOL = 16;

/** @param {unknown[]} values @param {number} type @returns {Buffer | undefined} */
function binaryArray(values, type) {
  if (values.length === 0) return undefined;
  let bytes = 20;
  let nulls = 0;
  for (const v of values) {
    if (v === null || v === undefined) {
      nulls = 1;
      bytes += 4;
    } else if (type === TEXT) {
      if (typeof v !== "string") return undefined;
      bytes += 4 + Buffer.byteLength(v, "utf8");
    } else if (type === INT4) {
      if (!Number.isInteger(v) || v > 2147483647 || v < -2147483648) return undefined;
      bytes += 8;
    } else {
      if (typeof v !== "boolean") return undefined;
      bytes += 5;
    }
  }
  const out = Buffer.allocUnsafe(bytes);
  out.writeInt32BE(1, 0);
  out.writeInt32BE(nulls, 4);
  out.writeInt32BE(type, 8);
  out.writeInt32BE(values.length, 12);
  out.writeInt32BE(1, 16);
  let at = 20;
  for (const v of values) {
    if (v === null || v === undefined) {
      out.writeInt32BE(-1, at);
      at += 4;
    } else if (type === TEXT) {
      const n = out.write(v, at + 4, "utf8");
      out.writeInt32BE(n, at);
      at += 4 + n;
    } else if (type === INT4) {
      out.writeInt32BE(4, at);
      out.writeInt32BE(v, at + 4);
      at += 8;
    } else {
      out.writeInt32BE(1, at);
      out.writeUInt8(v ? 1 : 0, at + 4);
      at += 5;
    }
  }
  return out;
}

/** Serializers for text[], integer[] and boolean[] parameters, falling back to PGlite's own. */
function binarySerializers(db) {
  const table = {};
  for (const [arrayType, type] of [
    [1009, TEXT],
    [1007, INT4],
    [1000, BOOL],
  ]) {
    const fallback = db.serializers[arrayType];
    table[arrayType] = (v) => (Array.isArray(v) && binaryArray(v, type)) || fallback(v);
  }
  return table;
}

/** The fields of an error worth sending back: PostgreSQL's code, detail and hint included. */
function plain(error) {
  if (!(error instanceof Error)) return { message: String(error) };
  const { code, detail, hint } = /** @type {{code?: string, detail?: string, hint?: string}} */ (error);
  return { name: error.name, message: error.message, code, detail, hint };
}

/** Where a statement goes: the database, or the open transaction it names. */
function target(m) {
  return m.transaction === undefined ? pg : transactions.get(m.transaction).tx;
}

async function handle(m) {
  switch (m.op) {
    case "open":
      // The compiled WebAssembly modules come from the opening thread, which compiles them once.
      pg = await PGlite.create(m.folder, m.modules ?? {});
      // A new 16 MB WAL segment is created by writing its last byte, not by filling it with zeros page by
      // page: in memory, a file filled that way is copied each time it outgrows its buffer (a pause of
      // tens of milliseconds per segment); on disk, PostgreSQL documents this setting as safe.
      await pg.exec("SET wal_init_zero = off");
      serializers = binarySerializers(pg);
      return null;
    case "query": {
      const r = await target(m).query(m.sql, m.params, { serializers });
      return { rows: r.rows, rowCount: r.rowCount ?? r.affectedRows ?? r.rows.length };
    }
    case "exec":
      await target(m).exec(m.sql);
      return null;
    case "begin":
      // PGlite's transaction lasts as long as its callback: the callback waits for "end".
      return await new Promise((begun, failed) => {
        const done = pg.transaction(
          (tx) =>
            new Promise((commit, rollback) => {
              transactions.set(m.transaction, { tx, commit, rollback, done });
              begun(null);
            }),
        );
        done.catch(failed);
      });
    case "end": {
      const t = transactions.get(m.transaction);
      transactions.delete(m.transaction);
      if (m.commit) t.commit(null);
      else t.rollback(new Error("rolled back by the caller"));
      try {
        await t.done;
      } catch (error) {
        // A rollback asked for ends in that error by design; a failed commit is the caller's to see.
        if (m.commit) throw error;
      }
      return null;
    }
    case "close":
      await pg?.close();
      return null;
    default:
      throw new Error(`unknown operation ${m.op}`);
  }
}

parentPort.on("message", (m) => {
  handle(m).then(
    (result) => parentPort.postMessage({ id: m.id, result }),
    (error) => parentPort.postMessage({ id: m.id, error: plain(error) }),
  );
});
