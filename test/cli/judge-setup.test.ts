// Which judge a command runs with: the verdict cache goes in front of live judges only, unless --no-cache.
import { describe, expect, it } from "vitest";
import { createJudge, describeLiveJudge, withVerdictCache } from "../../src/cli/judge-setup.ts";
import { DEFAULT_SETTINGS, type Settings } from "../../src/cli/settings.ts";
import { CachingJudge, type VerdictCacheBackend } from "../../src/judge/index.ts";
import { ROOT } from "./run-cli.ts";

const backend: VerdictCacheBackend = { get: async () => new Map(), put: async () => {} };
const settings = (model: string, cache = true): Settings => ({
  ...structuredClone(DEFAULT_SETTINGS),
  judge: { ...DEFAULT_SETTINGS.judge, model, base_url: "http://127.0.0.1:9/v1" },
  cache,
});

describe("withVerdictCache", () => {
  it("puts the cache in front of a live judge by default", () => {
    const s = settings("openai:fake-model");
    const { judge, cache } = withVerdictCache(createJudge(s, {}), backend, s);
    expect(judge).toBeInstanceOf(CachingJudge);
    expect(cache).toBe(judge);
  });

  it("leaves a fixture judge uncached", () => {
    const s = settings(`fixtures:${ROOT}examples/ensemble/judge-fixtures.json`);
    const setup = createJudge(s, {});
    expect(withVerdictCache(setup, backend, s)).toEqual({ judge: setup.judge });
  });

  it("--no-cache bypasses it", () => {
    const s = settings("openai:fake-model", false);
    const setup = createJudge(s, {});
    expect(withVerdictCache(setup, backend, s).cache).toBeUndefined();
  });
});

describe("describeLiveJudge", () => {
  it("describes the live judge exactly as it will be built, with no API key in the environment", () => {
    const s = settings("openai:fake-model");
    expect(describeLiveJudge(s)).toEqual(createJudge(s, {}).judge.descriptor);
    const hosted = settings("anthropic:fake-model-a");
    hosted.judge.base_url = undefined;
    expect(describeLiveJudge(hosted)).toMatchObject({ provider: "anthropic", model: "fake-model-a" });
  });
});
