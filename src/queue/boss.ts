// pg-boss on the store's PostgreSQL server: the queue's tables live beside the store's (schema pgboss).
import type { PgBoss } from "pg-boss";
import { InputError } from "../core/index.ts";
import type { Store } from "../engine/index.ts";
import { QUEUES } from "./queues.ts";

/**
 * How long a job may stay active before it counts as lost (its worker killed) and is given to another
 * worker. DRAMATURG_QUEUE_EXPIRE_SECONDS overrides it (tests make it short). Default 15 minutes.
 */
export function jobExpirySeconds(): number {
  const given = Number(process.env.DRAMATURG_QUEUE_EXPIRE_SECONDS);
  return Number.isInteger(given) && given >= 1 ? given : 900;
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
  // Loaded here: importing dramaturg does not load pg-boss.
  const { PgBoss: Boss } = await import("pg-boss");
  const boss: PgBoss = new Boss({
    connectionString,
    application_name: "dramaturg-queue",
    max: 4,
    supervise,
    // Lost jobs (expired) are found by the supervisor: as often as they can expire, at most once a minute.
    superviseIntervalSeconds: Math.min(60, expire),
    schedule,
  });
  boss.on("error", (error: Error) => process.stderr.write(`dramaturg worker: queue: ${error.message}\n`));
  await boss.start();
  for (const queue of QUEUES)
    if (!(await boss.getQueue(queue.name)))
      await boss
        .createQueue(queue.name, {
          expireInSeconds: expire,
          retryLimit: queue.retryLimit,
          retryDelay: 1,
          retryBackoff: true,
          notify: true,
        })
        // Two processes may create it at once: the other's is as good.
        .catch(async (error: unknown) => {
          if (!(await boss.getQueue(queue.name))) throw error;
        });
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
