// A `--queue` command that no worker answers: after a few seconds it says so on stderr, with the command that
// starts a worker on the same store (its password hidden), the way to queue without waiting, and the `show`
// that looks later. Whether a worker has taken a job is read from the queue.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { noWorkerNotice } from "../../src/cli/queued-wait.ts";
import { anyJobTaken, PERSONA_CHUNKS } from "../../src/queue/index.ts";
import { openStore } from "../../src/store/index.ts";
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
  syntheticTranscript,
} from "../../src/testing/index.ts";
import {
  dropFreshDatabases,
  freshDatabase,
  postgresSuite,
  queryRows,
  postgresUrl as url,
} from "../postgres.ts";
import { useTempDir } from "../temp-dir.ts";
import { BIN, ROOT, spawnCli, startCliProcess } from "./run-cli.ts";

const folder = useTempDir("dramaturg-queued-wait-");
const PASSWORD = "s3cret-pw";
let judge: FakeOpenAIServer;
let transcript: string;

/** A fresh database's URL with a password in it (the test server trusts local connections, so any will do). */
async function dbWithPassword(): Promise<string> {
  const db = new URL(await freshDatabase("dramaturg_qwait"));
  db.password = PASSWORD;
  return db.toString();
}

const evalArgs = (db: string) => [
  "eval",
  transcript,
  "--judge",
  "openai-compatible:fake-model",
  "--judge-base-url",
  judge.url,
  "--db",
  db,
  "--dimensions",
  "adherence",
  "--no-progress",
];

describe("the notice of a --queue command that no worker answers", () => {
  it("names the worker to start and the show to look later with the same --db, its password hidden", () => {
    const notice = noWorkerNotice(
      { db: `postgres://ops:${PASSWORD}@db.internal/evals`, what: "evaluation 3f2a", id: "3f2a" },
      5,
    );
    expect(notice).toContain("no worker has taken a job of evaluation 3f2a in 5 s");
    expect(notice).toContain("npx dramaturg worker --db postgres://ops:***@db.internal/evals\n");
    expect(notice).toContain("--detach");
    expect(notice).toContain("npx dramaturg show 3f2a --db postgres://ops:***@db.internal/evals\n");
    expect(notice).not.toContain(PASSWORD);
  });
});

describe.skipIf(!url)(postgresSuite("a --queue command waiting for workers"), () => {
  beforeAll(async () => {
    judge = await startFakeOpenAIServer({ latencyMs: 5 });
    transcript = join(folder(), "transcript.json");
    writeFileSync(transcript, JSON.stringify(syntheticTranscript({ messages: 4, agents: 1, channels: 1 })));
  });

  afterAll(async () => {
    await judge?.close();
    await dropFreshDatabases();
  });

  it("with no worker, says after the notice's seconds how to start one and how to --detach; its show command works", async () => {
    const db = await dbWithPassword();
    const child = spawn(process.execPath, [BIN, ...evalArgs(db), "--queue"], {
      cwd: ROOT,
      env: { ...process.env, DRAMATURG_QUEUE_NOTICE_SECONDS: "1" },
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const exited = new Promise((resolve) => child.on("exit", resolve));
    const until = Date.now() + 20_000;
    while (!stderr.includes("--detach") && Date.now() < until) await sleep(50);
    child.kill("SIGTERM");
    await exited;
    const id = /queued evaluation ([0-9a-f-]{36})/.exec(stderr)?.[1];
    expect(id, stderr).toBeDefined();
    const hidden = db.replace(PASSWORD, "***");
    expect(stderr).toContain(`no worker has taken a job of evaluation ${id} in 1 s`);
    expect(stderr).toContain(`  npx dramaturg worker --db ${hidden}\n`);
    expect(stderr).toContain(`  npx dramaturg show ${id} --db ${hidden}\n`);
    expect(stderr).not.toContain(PASSWORD);
    // The hinted show, with the password put back, finds the evaluation still queued.
    const shown = await spawnCli(["show", id!, "--db", db]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/pending: 0 \/ \d+ verdicts stored/);
  }, 30_000);

  it("a lease shorter than pg-boss allows is refused with exit 2 before anything is written", async () => {
    const db = await dbWithPassword();
    const r = await spawnCli([...evalArgs(db), "--queue"], {
      env: { DRAMATURG_QUEUE_HEARTBEAT_SECONDS: "5" },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/DRAMATURG_QUEUE_HEARTBEAT_SECONDS.*at least 10/);
    const [table] = await queryRows<{ name: string | null }>(
      db,
      "SELECT to_regclass('evaluations')::text AS name",
    );
    expect(table?.name).toBeNull();
  }, 30_000);

  it("tells a job not taken yet from one a worker has taken", async () => {
    const db = await dbWithPassword();
    const detached = await spawnCli([...evalArgs(db), "--queue", "--detach"]);
    expect(detached.code, detached.stderr).toBe(0);
    const id = detached.stdout.trim();
    const store = await openStore(db);
    try {
      expect(await anyJobTaken(store, db, PERSONA_CHUNKS, [{ evaluation_id: id }])).toBe(false);
      const worker = startCliProcess(["worker", "--db", db]);
      const until = Date.now() + 20_000;
      for (;;) {
        const [row] = await queryRows<{ status: string }>(
          db,
          "SELECT status FROM evaluations WHERE id = $1",
          [id],
        );
        if (row?.status === "completed" || Date.now() > until) break;
        await sleep(100);
      }
      expect(await anyJobTaken(store, db, PERSONA_CHUNKS, [{ evaluation_id: id }])).toBe(true);
      expect((await worker.stop()).code).toBe(0);
    } finally {
      await store.close();
    }
  }, 30_000);
});
