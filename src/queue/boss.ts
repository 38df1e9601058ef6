// pg-boss on the store's PostgreSQL server: the queue's tables live beside the store's (schema pgboss).
import type { PgBoss } from "pg-boss";
import { InputError } from "../core/index.ts";
import type { Store } from "../engine/index.ts";
import { QUEUES } from "./queues.ts";

/**
 * How long a job may stay active at most, its worker alive or not: pg-boss then fails it (and aborts it in the
 * worker) and another worker takes it. The heartbeat finds dead workers long before; this only bounds a live
 * worker stuck on a job, so it is pg-boss's longest, 24 hours, and a slow live job is never taken twice.
 * DRAMATURG_QUEUE_EXPIRE_SECONDS overrides it.
 */
export function jobExpirySeconds(): number {
  const given = Number(process.env.DRAMATURG_QUEUE_EXPIRE_SECONDS);
  return Number.isInteger(given) && given >= 1 ? Math.min(given, MAX_EXPIRY_SECONDS) : MAX_EXPIRY_SECONDS;
}

const MAX_EXPIRY_SECONDS = 24 * 3600;

/** pg-boss's shortest heartbeat. */
const LEAST_HEARTBEAT_SECONDS = 10;

/**
 * A job's lease: a live worker renews it every half of this (pg-boss's heartbeat); a job whose worker has not
 * renewed it for this long (killed, its machine gone) is failed and taken by another worker, within this plus
 * half of it (how often workers look). Default 30 s: a dead worker's jobs come back within 50 s.
 * DRAMATURG_QUEUE_HEARTBEAT_SECONDS sets it: a whole number of seconds, at least 10.
 */
export function jobHeartbeatSeconds(): number {
  const text = process.env.DRAMATURG_QUEUE_HEARTBEAT_SECONDS;
  if (text === undefined || text === "") return 30;
  const given = Number(text);
  if (!Number.isInteger(given) || given < LEAST_HEARTBEAT_SECONDS)
    throw new InputError(
      `expected a whole number of seconds, at least ${LEAST_HEARTBEAT_SECONDS} (pg-boss's shortest heartbeat), got "${text}"`,
      { place: "DRAMATURG_QUEUE_HEARTBEAT_SECONDS" },
    );
  return given;
}

/** Refuses a store the queue cannot use: only PostgreSQL servers are shared between machines. */
export function requireQueueStore(store: Store): NonNullable<Store["db"]> {
  if (store.dialect !== "postgres" || !store.db)
    throw new InputError(
      `the queue needs a PostgreSQL store (--db postgres://…); ${store.location} is ${store.dialect === "memory" ? "in this process's memory" : "an embedded PGlite store"}, which other processes cannot reach`,
      { place: "--queue" },
    );
  return store.db;
}

/**
 * Starts pg-boss on the store's PostgreSQL server (`connectionString`, the store's location; its tables in
 * their own schema, `pgboss`), creating its schema and every queue (queues.ts) on first use.
 */
export async function openQueue(
  store: Store,
  connectionString: string,
  {
    supervise = false,
    schedule = false,
  }: {
    /** Find expired jobs (a worker's). */
    supervise?: boolean;
    /** Send the jobs of cron schedules (online rules) when they come due; any one instance that does is enough. */
    schedule?: boolean;
  } = {},
) {
  requireQueueStore(store);
  const expire = jobExpirySeconds();
  const heartbeat = jobHeartbeatSeconds();
  // Lost jobs (a heartbeat missed, or expired) are looked for as often as half a lease.
  const lookSeconds = Math.max(1, Math.min(Math.floor(heartbeat / 2), expire));
  // Loaded here: importing dramaturg does not load pg-boss.
  const { PgBoss: Boss } = await import("pg-boss");
  const boss: PgBoss = new Boss({
    connectionString,
    application_name: "dramaturg-queue",
    max: 4,
    supervise,
    superviseIntervalSeconds: lookSeconds,
    monitorIntervalSeconds: lookSeconds,
    schedule,
  });
  boss.on("error", (error: Error) => process.stderr.write(`dramaturg worker: queue: ${error.message}\n`));
  await boss.start();
  for (const queue of QUEUES) {
    const found = await boss.getQueue(queue.name);
    if (!found)
      await boss
        .createQueue(queue.name, {
          expireInSeconds: expire,
          heartbeatSeconds: heartbeat,
          retryLimit: queue.retryLimit,
          retryDelay: 1,
          retryBackoff: true,
          notify: true,
        })
        // Two processes may create it at once: the other's is as good.
        .catch(async (error: unknown) => {
          if (!(await boss.getQueue(queue.name))) throw error;
        });
    // A queue made before (without a heartbeat, or another lease): jobs sent from now on carry this one.
    else if (found.heartbeatSeconds !== heartbeat || found.expireInSeconds !== expire)
      await boss.updateQueue(queue.name, { heartbeatSeconds: heartbeat, expireInSeconds: expire });
  }
  return boss;
}

/**
 * Runs `use` on a queue opened for it (no supervisor, no scheduler: a command that sends or reads jobs) and
 * stops it afterwards, whatever happened.
 */
export async function withQueue<T>(
  store: Store,
  connectionString: string,
  use: (boss: PgBoss) => Promise<T>,
): Promise<T> {
  const boss = await openQueue(store, connectionString);
  try {
    return await use(boss);
  } finally {
    await boss.stop({ graceful: false, close: true });
  }
}
