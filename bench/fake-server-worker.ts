// Runs the fake OpenAI-compatible server in a worker thread, so its CPU (parsing requests, hashing
// prompts for scores) is not charged to the evaluation being measured on the main thread.
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { type FakeResponder, type FakeServerStats, startFakeOpenAIServer } from "../src/testing/index.ts";

/** What the server counted: calls, peak concurrency, the first call's time and the tokens it answered. */
export type WorkerServerStats = Pick<FakeServerStats, "calls" | "maxInFlight" | "firstCallAt" | "tokens">;

export interface WorkerServer {
  url: string;
  /** What the server counted so far, and starts counting afresh (the URL stays). */
  takeStats(): Promise<WorkerServerStats>;
  /** Stops the server and ends the worker; returns what it counted since the last takeStats. */
  close(): Promise<WorkerServerStats>;
}

/**
 * Starts the fake server (latency in ms, requests not recorded) on its own thread; its answers are the default
 * responder's, or those of `responder`: a module's exported FakeResponder, by the module's URL and export name.
 */
export async function startFakeServerInWorker(
  latencyMs: number,
  responder?: { module: string; name: string },
): Promise<WorkerServer> {
  // A worker does not inherit tsx's loader on every Node version: register it, then load this file.
  const boot = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: { latencyMs, responder } });
  const url = await new Promise<string>((resolve, reject) => {
    worker.once("message", (m: { url: string }) => resolve(m.url));
    worker.once("error", reject);
  });
  const ask = (message: "stats" | "close") => {
    const answer = new Promise<WorkerServerStats>((resolve) => worker.once("message", resolve));
    worker.postMessage(message);
    return answer;
  };
  return {
    url,
    takeStats: () => ask("stats"),
    close: async () => {
      const result = await ask("close");
      await worker.terminate();
      return result;
    },
  };
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  const { latencyMs, responder } = workerData as {
    latencyMs: number;
    responder?: { module: string; name: string };
  };
  const respond = responder
    ? ((await import(responder.module)) as Record<string, FakeResponder>)[responder.name]
    : undefined;
  const server = await startFakeOpenAIServer({ latencyMs, recordRequests: false, respond });
  const take = (): WorkerServerStats => {
    const { stats } = server;
    const taken = {
      calls: stats.calls,
      maxInFlight: stats.maxInFlight,
      firstCallAt: stats.firstCallAt,
      tokens: stats.tokens,
    };
    Object.assign(stats, { calls: 0, maxInFlight: stats.inFlight, firstCallAt: undefined });
    stats.tokens = { prompt: 0, completion: 0, schema: 0 };
    return taken;
  };
  port.on("message", async (message: "stats" | "close") => {
    if (message === "close") await server.close();
    port.postMessage(take());
    if (message === "close") port.close();
  });
  port.postMessage({ url: server.url });
}
