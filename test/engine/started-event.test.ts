// The `started` event carries the plan's call count, which takes a pass over the whole plan. It goes out
// after the first requests (so the pass does not delay them): with the first answers, or, for a judge slow
// to answer, a short while into the run; always before any `judged` event.
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type ProgressEvent, runEvaluation, type Store } from "../../src/engine/index.ts";
import type { Judge, JudgeRequest, JudgeResponse } from "../../src/judge/index.ts";
import { personaEvaluation, preparePersonaEvaluation } from "../../src/personas/index.ts";
import { openStore } from "../../src/store/index.ts";
import { sevens } from "./sevens.ts";

const dir = fileURLToPath(new URL("../fixtures/hand-scored/", import.meta.url));

/** Scores every item 7; each answer waits for `gate` (open by default). */
class GatedJudge implements Judge {
  readonly descriptor = { provider: "test", model: "gated", prompt_version: "test" };
  readonly asked: number[] = [];
  constructor(private readonly gate: Promise<void> = Promise.resolve()) {}
  async judge(request: JudgeRequest): Promise<JudgeResponse> {
    this.asked.push(performance.now());
    await this.gate;
    return sevens(request);
  }
}

describe("the started event", () => {
  const stores: Store[] = [];
  afterAll(async () => {
    for (const s of stores) await s.close();
  });

  async function run(judge: GatedJudge, events: Array<ProgressEvent & { at: number }>) {
    const store = await openStore("memory://");
    stores.push(store);
    const input = await preparePersonaEvaluation({
      transcript: `${dir}transcript.json`,
      propositions: `${dir}propositions`,
    });
    return runEvaluation({
      evaluation: personaEvaluation({ ...input, judge: judge.descriptor }),
      store,
      judge,
      concurrency: 2,
      onProgress: (event) => events.push({ ...event, at: performance.now() }),
    });
  }

  it("goes out after the first request, before any judged event, with the plan's call count", async () => {
    const judge = new GatedJudge();
    const events: Array<ProgressEvent & { at: number }> = [];
    await run(judge, events);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("started");
    expect(types.at(-1)).toBe("finished");
    const started = events[0] as Extract<ProgressEvent, { type: "started" }> & { at: number };
    expect(started.total).toBe(judge.asked.length);
    expect(judge.asked[0]!).toBeLessThanOrEqual(started.at);
  });

  it("goes out while a slow judge's first answers are still awaited", async () => {
    let open!: () => void;
    const judge = new GatedJudge(new Promise<void>((resolve) => (open = resolve)));
    const events: Array<ProgressEvent & { at: number }> = [];
    const running = run(judge, events);
    // No answer has come (the gate is shut), yet the run has announced itself within a few hundred ms.
    const deadline = performance.now() + 2_000;
    while (!events.some((e) => e.type === "started") && performance.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(events.map((e) => e.type)).toEqual(["started"]);
    expect(judge.asked.length).toBe(2);
    open();
    await running;
    expect(events.filter((e) => e.type === "judged").length).toBeGreaterThan(0);
  });
});
