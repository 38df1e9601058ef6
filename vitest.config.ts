import { defineConfig } from "vitest/config";

// Vitest 5's reporter calls Map.groupBy, which Node 20 lacks; without this a failing test on
// Node 20 crashes the reporter instead of printing the failure. Node 22+ has it natively.
if (typeof (Map as unknown as { groupBy?: unknown }).groupBy !== "function") {
  Object.defineProperty(Map, "groupBy", {
    value<K, T>(items: Iterable<T>, key: (item: T, index: number) => K): Map<K, T[]> {
      const out = new Map<K, T[]>();
      let i = 0;
      for (const item of items) {
        const k = key(item, i++);
        const list = out.get(k);
        if (list) list.push(item);
        else out.set(k, [item]);
      }
      return out;
    },
  });
}

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // V8 13.6 (Node 24) can abort a test process with "Check failed: jit_page_->allocations_.erase(addr)"
    // while freeing WebAssembly code that tier-up replaced, when many PGlite stores (each compiling PGlite's
    // WASM on a thread of its own) open and close in one process, as the store tests do (seen once in
    // six CI runs). Without tier-up no code is replaced, and without wasm code GC none is freed while a
    // store is open; the tests' PGlite is no slower for it (test/store: 29.5 s → 31.0 s, within noise).
    // A CLI process opens one store and runs as it is.
    execArgv: ["--no-wasm-tier-up", "--no-wasm-code-gc"],
    // A temp folder for the run, checked empty at the end; a notice when the PostgreSQL or browser tests are skipped.
    globalSetup: ["test/setup/temp-folder.ts", "test/setup/postgres-notice.ts", "test/setup/chromium-notice.ts"],
  },
});
