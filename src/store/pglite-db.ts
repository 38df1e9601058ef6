// The embedded adapter: PGlite (PostgreSQL in WebAssembly) in memory or in a data folder.
//
// PGlite runs on a worker thread of its own (pglite-thread.js), not on the caller's: its work is
// synchronous WebAssembly, and on the caller's thread every statement stopped everything else — the
// judge's HTTP answers, the scoring, the next cache keys. On its own thread the database writes one batch
// of scores while the caller scores the next. Each call is one message there and one answer back;
// parameters and rows cross by structured clone (dates, JSON values and byte arrays arrive as they left).
import { mkdir, readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Worker } from "node:worker_threads";
import { DramaturgError, StoreError } from "../core/index.ts";
import type { Db, Queryable, QueryResult } from "./db.ts";

/** What the thread answers: a result, or the fields of the error it caught. */
interface Answer {
  id: number;
  result?: unknown;
  error?: { name?: string; message: string; code?: string; detail?: string; hint?: string };
}

export interface PgliteDbOptions {
  /**
   * For a new database (in memory, or a folder that is missing or empty): a data directory to start from, as
   * an uncompressed tar, instead of running initdb (seconds and most of a GB). Called only for a new
   * database; `undefined` (or no function) runs initdb.
   */
  dataDir?: () => Promise<Uint8Array | undefined>;
  /** Arguments added to initdb's own, when it runs. */
  initdbArgs?: readonly string[];
  /** Server settings (`name=value`) added to the ones every PGlite store starts with. */
  settings?: readonly string[];
}

/**
 * Server settings of every PGlite store. shared_buffers: PostgreSQL's 128 MB default cost ≈ 115 MB of
 * resident memory from the first statement on; a store of a few runs fits in far less, and a page that
 * is not in the buffers is read back from the file system's cache (or, for memory://, from memory).
 */
const SETTINGS = ["shared_buffers=16MB"];

export interface PgliteDb extends Db {
  /** The data directory as an uncompressed tar, for {@link PgliteDbOptions.dataDir}. */
  dumpDataDir(): Promise<Uint8Array>;
}

/** Opens PGlite in memory (no folder) or in `folder`, creating the folder if it is missing. */
export async function openPgliteDb(
  folder?: string,
  { dataDir, initdbArgs, settings = [] }: PgliteDbOptions = {},
): Promise<PgliteDb> {
  // New: in memory, or a folder that is missing or empty. A folder holding other files than a database
  // is left to PGlite, as before: a database is not unpacked among someone's files.
  let isNew = true;
  try {
    if (folder !== undefined) {
      await mkdir(folder, { recursive: true });
      isNew = (await readdir(folder)).length === 0;
    }
  } catch (error) {
    throw opening(folder, error);
  }
  // The data directory is read (and its modules compiled) while the thread starts and loads PGlite.
  const starting = Promise.all([wasmModules(), isNew && dataDir ? dataDir() : undefined]);
  const worker = new Worker(new URL("./pglite-thread.js", import.meta.url));
  // An idle database never keeps the process alive (as PGlite on this thread did not); a call does.
  worker.unref();
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  let nextCall = 0;
  let nextTransaction = 0;
  let gone: Error | undefined;

  worker.on("message", ({ id, result, error }: Answer) => {
    const call = pending.get(id);
    if (!call) return;
    pending.delete(id);
    if (pending.size === 0) worker.unref();
    if (error) call.reject(Object.assign(new Error(error.message), error));
    else call.resolve(result);
  });
  const lost = (error: Error) => {
    gone ??= error;
    for (const call of pending.values()) call.reject(gone);
    pending.clear();
  };
  worker.on("error", lost);
  worker.on("exit", (code) => lost(new Error(`the database thread stopped (exit code ${code})`)));

  const call = <T>(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (gone) return reject(gone);
      const id = nextCall++;
      if (pending.size === 0) worker.ref();
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ ...message, id }, transfer);
    });
  const queryable = (transaction?: number): Queryable => ({
    query: <T>(sql: string, params?: readonly unknown[]) =>
      guard(() => call<QueryResult<T>>({ op: "query", sql, params, transaction })),
    exec: (sql: string) => guard(() => call<void>({ op: "exec", sql, transaction })),
  });

  try {
    const [modules, read] = await starting;
    // A view of part of a buffer (Node's pool) cannot move to the thread without the rest; it is copied.
    const tar =
      read && (read.byteOffset > 0 || read.byteLength < read.buffer.byteLength ? read.slice() : read);
    const open = {
      op: "open",
      folder,
      modules,
      ...(tar ? { dataDir: tar } : {}),
      ...(initdbArgs ? { initdbArgs } : {}),
      settings: [...SETTINGS, ...settings],
    };
    // The tar moves to the thread rather than being copied: tens of MB at the peak of the open.
    await call(open, tar ? [tar.buffer as ArrayBuffer] : []);
  } catch (error) {
    await worker.terminate();
    throw opening(folder, error);
  }
  return {
    dialect: "pglite",
    ...queryable(),
    async transaction(fn) {
      const transaction = nextTransaction++;
      await guard(() => call({ op: "begin", transaction }));
      let result: Awaited<ReturnType<typeof fn>>;
      try {
        result = await fn(queryable(transaction));
      } catch (error) {
        // The caller's error is what matters; a failed rollback (the thread gone) adds nothing to it.
        await call({ op: "end", transaction, commit: false }).catch(() => undefined);
        throw error;
      }
      await guard(() => call({ op: "end", transaction, commit: true }));
      return result;
    },
    dumpDataDir: () => guard(() => call<Uint8Array>({ op: "dump" })),
    close: () =>
      guard(async () => {
        try {
          if (!gone) await call({ op: "close" });
        } finally {
          await worker.terminate();
        }
      }),
  };
}

function opening(folder: string | undefined, error: unknown): StoreError {
  return new StoreError(`could not open the store at ${folder ?? "memory://"}: ${describe(error)}`, {
    cause: error,
  });
}

async function guard<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (error) {
    if (DramaturgError.isInstance(error)) throw error;
    throw new StoreError(`database error: ${describe(error)}`, { cause: error });
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? `${error.message} (${code})` : error.message;
}

// PGlite's two WebAssembly modules, compiled once per process and handed to every database thread: a
// thread that compiled its own paid about a second for it on each open (PGlite on one thread compiles
// once). Without them (files not where PGlite keeps them) each thread compiles its own, as before.
let compiled: Promise<WasmModules | undefined> | undefined;
interface WasmModules {
  pgliteWasmModule: object;
  initdbWasmModule: object;
}
// The project's TypeScript libraries leave WebAssembly out; this is the one call made of it.
declare const WebAssembly: { compile(bytes: Uint8Array): Promise<object> };
function wasmModules(): Promise<WasmModules | undefined> {
  compiled ??= (async () => {
    try {
      const dist = dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
      const [pglite, initdb] = await Promise.all(
        ["pglite.wasm", "initdb.wasm"].map(async (file) =>
          WebAssembly.compile(await readFile(join(dist, file))),
        ),
      );
      return { pgliteWasmModule: pglite!, initdbWasmModule: initdb! };
    } catch {
      return undefined;
    }
  })();
  return compiled;
}
