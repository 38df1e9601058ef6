import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatJudgeSpec, parseJudgeSpec } from "../../src/core/index.ts";
import { inputError } from "../input-error.ts";

describe("parseJudgeSpec", () => {
  it("provider:model is a live model, the model id kept whole (colons too)", () => {
    expect(parseJudgeSpec("openai:gpt-4o-mini")).toEqual({
      kind: "model",
      provider: "openai",
      model: "gpt-4o-mini",
    });
    expect(parseJudgeSpec("openai-compatible:llama3.1:8b")).toEqual({
      kind: "model",
      provider: "openai-compatible",
      model: "llama3.1:8b",
    });
  });

  it("fixtures:FILE is a replay, its path resolved against cwd", () => {
    expect(parseJudgeSpec("fixtures:j/a b.json", { cwd: "/work" })).toEqual({
      kind: "fixtures",
      file: join("/work", "j/a b.json"),
    });
    expect(parseJudgeSpec("fixtures:j.json")).toEqual({ kind: "fixtures", file: "j.json" });
  });

  it("a malformed spec or an unknown provider lists every accepted form, fixtures:FILE included", () => {
    for (const text of ["gpt-4o", "openai:", "gemini:pro", ""]) {
      const error = inputError(() => parseJudgeSpec(text));
      expect(error.message).toMatch(
        /openai:MODEL, anthropic:MODEL, openai-compatible:MODEL .*or fixtures:FILE/,
      );
      expect(error.exitCode).toBe(2);
    }
  });

  it("formats back to the text it parses from", () => {
    for (const text of ["anthropic:claude-sonnet-4-5", "fixtures:/a/b.yaml"])
      expect(formatJudgeSpec(parseJudgeSpec(text))).toBe(text);
  });
});
