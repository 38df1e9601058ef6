import { describe, expect, it } from "vitest";
import {
  createJudge,
  FIXTURES_FORMAT,
  FixtureJudge,
  isLiveJudge,
  type JudgeFixtures,
} from "../../src/judge/index.ts";
import { ROOT } from "../cli/run-cli.ts";

const verdicts: JudgeFixtures["verdicts"] = [
  { dimension: "adherence", proposition_id: "p", score: 7, reasoning: "" },
];

describe("the fixture judge's identity", () => {
  it("is the judge that recorded the verdicts, from the file's judge block", () => {
    const judge = new FixtureJudge({
      fixtures: { format: FIXTURES_FORMAT, judge: { provider: "openai", model: "gpt-4o-mini" }, verdicts },
      file: "/somewhere/cassette.json",
    });
    expect(judge.descriptor).toEqual({
      provider: "fixtures",
      model: "openai:gpt-4o-mini",
      prompt_version: "fixtures",
    });
  });

  it("is hand-written without a judge block, and never the file's path", () => {
    const a = new FixtureJudge({ fixtures: { format: FIXTURES_FORMAT, verdicts }, file: "a.yaml" });
    const b = new FixtureJudge({ fixtures: { format: FIXTURES_FORMAT, verdicts }, file: "moved/b.yaml" });
    expect(a.descriptor.model).toBe("hand-written");
    expect(b.descriptor).toEqual(a.descriptor);
  });
});

describe("createJudge", () => {
  it("replays a fixtures spec with a fixture judge, which is not live", () => {
    const judge = createJudge(`fixtures:${ROOT}examples/ensemble/judge-fixtures.json`);
    expect(judge).toBeInstanceOf(FixtureJudge);
    expect(isLiveJudge(judge)).toBe(false);
  });

  it("builds a live LLM judge for a model spec, its descriptor free of the key", () => {
    const judge = createJudge(
      { kind: "model", provider: "openai", model: "gpt-4o-mini" },
      { env: { OPENAI_API_KEY: "sk-test-0123456789" }, temperature: 0 },
    );
    expect(isLiveJudge(judge)).toBe(true);
    expect(judge.descriptor).toMatchObject({ provider: "openai", model: "gpt-4o-mini", temperature: 0 });
    expect(JSON.stringify(judge.descriptor)).not.toContain("sk-test");
  });
});
