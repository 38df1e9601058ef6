// A worker runs two jobs of a kind at once, so that its judge calls do not dip while one job finishes and the
// next is fetched; together they stay within the worker's concurrency.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startWorker } from "../../src/queue/index.ts";
import { startFakeOpenAIServer, syntheticTranscript } from "../../src/testing/index.ts";
import { spawnCli } from "../cli/run-cli.ts";
import {
  dropFreshDatabases,
  freshDatabase,
  postgresSuite,
  queryRows,
  postgresUrl as url,
} from "../postgres.ts";
import { useTempDir } from "../temp-dir.ts";

const folder = useTempDir("dramaturg-worker-slots-");

describe.skipIf(!url)(postgresSuite("a worker's call slots"), () => {
  afterAll(() => dropFreshDatabases());

  it("two jobs at once, never more calls in flight than the worker's concurrency", async () => {
    const db = await freshDatabase("dramaturg_slots");
    const server = await startFakeOpenAIServer({ latencyMs: 40 });
    const transcript = join(folder(), "transcript.json");
    writeFileSync(transcript, JSON.stringify(syntheticTranscript({ messages: 60, agents: 3, channels: 1 })));
    try {
      const queued = await spawnCli([
        ...["eval", transcript, "--judge", "openai-compatible:fake-model", "--judge-base-url", server.url],
        ...["--db", db, "--dimensions", "adherence", "--queue", "--detach"],
      ]);
      expect(queued.code, queued.stderr).toBe(0);
      const id = queued.stdout.trim();
      const chunks = new Set<string>();
      const worker = await startWorker({
        store: db,
        concurrency: 3,
        cache: false,
        onEvent: (event) => {
          if (event.type === "chunk") chunks.add(`${event.first}`);
        },
      });
      try {
        for (;;) {
          const [row] = await queryRows<{ status: string }>(
            db,
            "SELECT status FROM evaluations WHERE id = $1",
            [id],
          );
          if (row?.status === "completed") break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } finally {
        await worker.stop();
      }
      expect(chunks.size).toBeGreaterThan(2);
      // Each job's judge would keep 3 calls in flight: two jobs at once, 6 but for the worker's slots.
      expect(server.stats.maxInFlight).toBe(3);
    } finally {
      await server.close();
    }
  }, 60_000);
});
