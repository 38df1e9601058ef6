// Opening a store, as a command's start-up pays for it (issue 18): `memory://`, a new folder and an existing
// folder, each opened (and migrated) in a fresh Node process of its own, timed from before openStore to its
// first query answered, with the process's peak resident memory. Median of 5 after one warm-up, which also
// makes the pristine data directory when there is none yet.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./median.ts";

export type StoreKind = "memory" | "new-folder" | "existing-folder";

export interface OpenFigures {
  /** Median milliseconds from calling openStore to the first query's answer. */
  open_ms: number;
  /** Median peak resident memory of the whole process, MB. */
  peak_rss_mb: number;
  runs: { open_ms: number; peak_rss_mb: number }[];
}

export type StoreOpenFigures = Record<StoreKind, OpenFigures>;

const SELF = fileURLToPath(import.meta.url);

/** In the child: opens one store, prints its figures as JSON. */
async function openOnce(location: string): Promise<void> {
  const { openStore } = await import("../src/store/index.ts");
  const started = performance.now();
  const store = await openStore(location);
  // The first query: SQL where there is a database; memory:// has none, and answers its migration status.
  if (store.db) await store.db.query("SELECT count(*) FROM schema_migrations");
  else await store.migrationStatus();
  const open_ms = performance.now() - started;
  await store.close();
  process.stdout.write(JSON.stringify({ open_ms, peak_rss_mb: process.resourceUsage().maxRSS / 1024 }));
}

function child(location: string): { open_ms: number; peak_rss_mb: number } {
  const run = spawnSync(process.execPath, [...process.execArgv, SELF, "--open", location], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (run.status !== 0) throw new Error(`opening ${location} exited ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout) as { open_ms: number; peak_rss_mb: number };
}

export async function benchStoreOpen(runs = 5): Promise<StoreOpenFigures> {
  const dir = mkdtempSync(join(tmpdir(), "dramaturg-store-open-"));
  try {
    const existing = join(dir, "existing");
    let fresh = 0;
    const locations: Record<StoreKind, () => string> = {
      memory: () => "memory://",
      "new-folder": () => join(dir, `new-${fresh++}`),
      "existing-folder": () => existing,
    };
    const figures = {} as StoreOpenFigures;
    for (const kind of Object.keys(locations) as StoreKind[]) {
      child(locations[kind]()); // warm-up (the first also makes the pristine directory if missing)
      const measured = Array.from({ length: runs }, () => child(locations[kind]()));
      figures[kind] = {
        open_ms: median(measured.map((r) => r.open_ms)),
        peak_rss_mb: median(measured.map((r) => r.peak_rss_mb)),
        runs: measured,
      };
    }
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--open") await openOnce(process.argv[3]!);
