// What a dry run says the live judge of a command's settings would be, without building it.
import { describe, expect, it } from "vitest";
import { describeLiveJudge } from "../../src/cli/judge-setup.ts";
import { DEFAULT_SETTINGS, type Settings } from "../../src/cli/settings.ts";
import { createJudge } from "../../src/judge/index.ts";

const settings = (model: string, cache = true): Settings => ({
  ...structuredClone(DEFAULT_SETTINGS),
  judge: { ...DEFAULT_SETTINGS.judge, model, base_url: "http://127.0.0.1:9/v1" },
  cache,
});

describe("describeLiveJudge", () => {
  it("describes the live judge exactly as it will be built, with no API key in the environment", () => {
    const s = settings("openai:fake-model");
    expect(describeLiveJudge(s)).toEqual(
      createJudge(s.judge.model, {
        baseUrl: s.judge.base_url,
        temperature: s.judge.temperature,
        env: { OPENAI_API_KEY: "x" },
      }).descriptor,
    );
    const hosted = settings("anthropic:fake-model-a");
    hosted.judge.base_url = undefined;
    expect(describeLiveJudge(hosted)).toMatchObject({ provider: "anthropic", model: "fake-model-a" });
  });
});
