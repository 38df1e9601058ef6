// What a verdict row costs on memory://: 100,000 score rows written through the ScoreWriter, the heap
// measured before and after (garbage collected both times), per row, beside the length of the row's own
// text (its ScoreInput as JSON, ids included), which is what a compact row should cost about.
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { openStore, type ScoreInput } from "../src/store/index.ts";
import { benchRun, benchScoreRow } from "./store.bench.ts";

export interface MemoryRowFigures {
  rows: number;
  /** Heap growth per stored row, bytes. */
  heap_bytes_per_row: number;
  /** The row's text (its ScoreInput as JSON), bytes per row on average. */
  text_bytes_per_row: number;
  /** Seconds to write them all. */
  write_s: number;
}

/** A full garbage collection, without needing node to be started with --expose-gc. */
function collect(): void {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  gc();
}

export async function benchMemoryRows(rows = 100_000): Promise<MemoryRowFigures> {
  const store = await openStore("memory://");
  try {
    const ids = await benchRun(store, rows);
    collect();
    const before = process.memoryUsage().heapUsed;
    const writer = store.scores.writer();
    let text = 0;
    const started = performance.now();
    for (let i = 0; i < rows; i++) {
      const row: ScoreInput = {
        ...benchScoreRow(ids, i, `The message stays in character and names the topic (${i}).`),
        inverted: false,
        hard: false,
      };
      text += JSON.stringify(row).length;
      await writer.write(row);
    }
    await writer.close();
    const write_s = (performance.now() - started) / 1000;
    collect();
    const after = process.memoryUsage().heapUsed;
    const stored = await store.scores.summary(ids.evaluation);
    if (stored.ok !== rows) throw new Error(`stored ${stored.ok} of ${rows} rows`);
    return {
      rows,
      heap_bytes_per_row: Math.round((after - before) / rows),
      text_bytes_per_row: Math.round(text / rows),
      write_s: Math.round(write_s * 100) / 100,
    };
  } finally {
    await store.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await benchMemoryRows());
