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
// PGlite sends an array as a literal it builds, and measures character by character, in JavaScript,
// which cost more than PostgreSQL's reading of it. Flat arrays of text, integers, reals, booleans and
// uuids only; anything else (and any value of another kind) goes the default way, as text.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Per element type: its oid, the array type's oid, and how to size and write one non-NULL value. */
const ELEMENTS = [
  {
    oid: 25, // text
    array: 1009,
    size: (v) => (typeof v === "string" ? Buffer.byteLength(v, "utf8") : -1),
    write: (out, v, at) => out.write(v, at, "utf8"),
  },
  {
    oid: 23, // integer
    array: 1007,
    size: (v) => (Number.isInteger(v) && v <= 2147483647 && v >= -2147483648 ? 4 : -1),
    write: (out, v, at) => out.writeInt32BE(v, at) - at,
  },
  {
    // real: the value rounded to single precision, as PostgreSQL rounds a double it is given
    oid: 700,
    array: 1021,
    size: (v) => (typeof v === "number" ? 4 : -1),
    write: (out, v, at) => out.writeFloatBE(v, at) - at,
  },
  {
    oid: 16, // boolean
    array: 1000,
    size: (v) => (typeof v === "boolean" ? 1 : -1),
    write: (out, v, at) => out.writeUInt8(v ? 1 : 0, at) - at,
  },
  {
    oid: 2950, // uuid
    array: 2951,
    size: (v) => (typeof v === "string" && UUID.test(v) ? 16 : -1),
    write: (out, v, at) => out.write(v.replaceAll("-", ""), at, "hex"),
  },
];

/** A flat array in binary form, or undefined when a value does not fit the element type. */
function binaryArray(values, element) {
  if (values.length === 0) return undefined;
  let bytes = 20;
  let nulls = 0;
  for (const v of values) {
    if (v === null || v === undefined) {
      nulls = 1;
      bytes += 4;
      continue;
    }
    const size = element.size(v);
    if (size < 0) return undefined;
    bytes += 4 + size;
  }
  const out = Buffer.allocUnsafe(bytes);
  out.writeInt32BE(1, 0); // dimensions
  out.writeInt32BE(nulls, 4);
  out.writeInt32BE(element.oid, 8);
  out.writeInt32BE(values.length, 12);
  out.writeInt32BE(1, 16); // lower bound
  let at = 20;
  for (const v of values) {
    if (v === null || v === undefined) {
      out.writeInt32BE(-1, at);
      at += 4;
      continue;
    }
    const written = element.write(out, v, at + 4);
    out.writeInt32BE(written, at);
    at += 4 + written;
  }
  return out;
}

/** Serializers for the arrays above, falling back to PGlite's own. */
function binarySerializers(db) {
  const table = {};
  for (const element of ELEMENTS) {
    const fallback = db.serializers[element.array];
    table[element.array] = (v) => (Array.isArray(v) && binaryArray(v, element)) || fallback(v);
  }
  return table;
}

/** The fields of an error worth sending back: PostgreSQL's code, detail and hint included. */
function plain(error) {
  if (!(error instanceof Error)) return { message: String(error) };
  const { code, detail, hint } = /** @type {{code?: string, detail?: string, hint?: string}} */ (error);
  return { name: error.name, message: error.message, code, detail, hint };
}

/**
 * The tar as PGlite's loadDataDir reads it (its arrayBuffer() and type). A Blob would copy the tens of MB
 * twice more (into the Blob, then out of it) at the moment the database is opening, its peak of memory.
 */
function tarBlob(bytes) {
  return /** @type {Blob} */ (
    /** @type {unknown} */ ({
      type: "application/x-tar",
      size: bytes.byteLength,
      arrayBuffer: async () =>
        bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
          ? bytes.buffer
          : bytes.slice().buffer,
    })
  );
}

/** Where a statement goes: the database, or the open transaction it names. */
function target(m) {
  return m.transaction === undefined ? pg : transactions.get(m.transaction).tx;
}

async function handle(m) {
  switch (m.op) {
    case "open":
      // The compiled WebAssembly modules come from the opening thread, which compiles them once. A new
      // database starts from the data directory it was sent (a tar) when there is one, instead of initdb.
      pg = await PGlite.create(m.folder, {
        ...m.modules,
        ...(m.dataDir ? { loadDataDir: tarBlob(m.dataDir) } : {}),
        ...(m.initdbArgs ? { initDbStartParams: m.initdbArgs } : {}),
        startParams: [...PGlite.defaultStartParams, ...(m.settings ?? []).flatMap((s) => ["-c", s])],
      });
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
    case "dump": {
      // The data directory as an uncompressed tar, for a new database to start from.
      const tar = await pg.dumpDataDir("none");
      return new Uint8Array(await tar.arrayBuffer());
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
