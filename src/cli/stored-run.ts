// What `drift` and `redteam` share around their stored runs: the store opened for the run, a live count on a
// terminal's stderr, the judge and the store closed however the run ends; then the document printed (or written
// to --out) in its format, and where it is stored.
import { writeFileSync } from "node:fs";
import type { Store } from "../engine/index.ts";
import type { Judge } from "../judge/index.ts";

/** Runs `run` on the store at `db`, counting `what` done on a terminal; its result. */
export async function runStored<T>(
  db: string,
  what: string,
  judge: Judge | undefined,
  run: (store: Store, onProgress: (done: number, total: number) => void) => Promise<T>,
): Promise<{ result: T; location: string }> {
  const { openStore } = await import("../store/index.ts");
  const store = await openStore(db);
  const live = process.stderr.isTTY === true;
  try {
    const result = await run(store, (done, total) => {
      if (live) process.stderr.write(`\r\x1b[2K${what} ${done}/${total}`);
    });
    return { result, location: store.location };
  } finally {
    if (live) process.stderr.write("\r\x1b[2K");
    await judge?.close?.();
    await store.close();
  }
}

/** The document's text to stdout (or `--out`), then where it is stored and how to print it again. */
export function emitStored(text: string, out: string | undefined, location: string, id: string): void {
  if (out) writeFileSync(out, text);
  else process.stdout.write(text);
  process.stderr.write(
    `${out ? `wrote ${out}; ` : ""}stored in ${location} (dramaturg show ${id.slice(0, 8)})\n`,
  );
}
