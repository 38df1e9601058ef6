// Runs the fake OpenAI-compatible server in a worker thread, so its CPU (parsing requests, hashing
// prompts for scores) is not charged to the evaluation being measured on the main thread.
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { startFakeOpenAIServer } from "../src/testing/index.ts";

export interface WorkerServer {
  url: string;
  /** Stops the server and ends the worker; returns the calls it received and its peak concurrency. */
  close(): Promise<{ calls: number; maxInFlight: number }>;
}

/** Starts the fake server (latency in ms, requests not recorded) on its own thread. */
export async function startFakeServerInWorker(latencyMs: number): Promise<WorkerServer> {
  // A worker does not inherit tsx's loader on every Node version: register it, then load this file.
  const boot = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: { latencyMs } });
  const url = await new Promise<string>((resolve, reject) => {
    worker.once("message", (m: { url: string }) => resolve(m.url));
    worker.once("error", reject);
  });
  return {
    url,
    close: async () => {
      const stats = new Promise<{ calls: number; maxInFlight: number }>((resolve) =>
        worker.once("message", resolve),
      );
      worker.postMessage("close");
      const result = await stats;
      await worker.terminate();
      return result;
    },
  };
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  const { latencyMs } = workerData as { latencyMs: number };
  const server = await startFakeOpenAIServer({ latencyMs, recordRequests: false });
  port.on("message", async () => {
    await server.close();
    port.postMessage({ calls: server.stats.calls, maxInFlight: server.stats.maxInFlight });
    port.close();
  });
  port.postMessage({ url: server.url });
}
