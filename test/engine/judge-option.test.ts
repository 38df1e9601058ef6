// The judge of a library call: built from a spec, an AI SDK model or taken as given; the verdict cache
// goes in front of live judges only, and only when asked (the default) and there is a store.
import { fileURLToPath } from "node:url";
import { createOpenAI } from "@ai-sdk/openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareJudge } from "../../src/engine/index.ts";
import { CachingJudge, FixtureJudge, isLiveJudge, LlmJudge } from "../../src/judge/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { scriptedJudge } from "../../src/testing/index.ts";

const fixtures = fileURLToPath(new URL("../../examples/ensemble/judge-fixtures.json", import.meta.url));
const local = { baseUrl: "http://127.0.0.1:9/v1" };
let store: Store;
beforeAll(async () => {
  store = await openStore("memory://");
});
afterAll(async () => {
  await store.close();
});

describe("prepareJudge", () => {
  it("puts the cache in front of a live judge given as a spec", () => {
    const ready = prepareJudge("openai:fake-model", local, { store });
    expect(isLiveJudge(ready.judge)).toBe(true);
    expect(ready.judge).toBeInstanceOf(CachingJudge);
    expect(ready.cache).toBe(ready.judge);
    expect(ready.judge.descriptor).toMatchObject({ provider: "openai", model: "fake-model" });
  });

  it("builds an LLM judge on an AI SDK model, cached too", () => {
    const model = createOpenAI({ baseURL: local.baseUrl, apiKey: "x" }).chat("fake-model");
    const ready = prepareJudge(model, {}, { store });
    expect(ready.judge).toBeInstanceOf(CachingJudge);
    expect(ready.judge.descriptor).toMatchObject({ model: "fake-model" });
  });

  it("leaves a fixture judge uncached, whether given as a spec or built in code", () => {
    const spec = prepareJudge(`fixtures:${fixtures}`, {}, { store });
    expect(isLiveJudge(spec.judge)).toBe(false);
    expect(spec.judge).toBeInstanceOf(FixtureJudge);
    expect(spec.cache).toBeUndefined();
    const scripted = scriptedJudge(() => ({ score: 5 }));
    expect(prepareJudge(scripted, {}, { store }).judge).toBe(scripted);
  });

  it("cache: false, or no store, bypasses it", () => {
    expect(prepareJudge("openai:fake-model", local, { store, cache: false }).judge).toBeInstanceOf(LlmJudge);
    expect(prepareJudge("openai:fake-model", local).judge).toBeInstanceOf(LlmJudge);
  });
});
