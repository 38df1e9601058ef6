import { describe, expect, it } from "vitest";
import { addUsage, ZERO_USAGE } from "../../src/core/index.ts";

describe("addUsage", () => {
  it("adds input and output tokens, and leaves cached tokens out when neither side has them", () => {
    expect(addUsage({ input_tokens: 3, output_tokens: 1 }, { input_tokens: 4, output_tokens: 2 })).toEqual({
      input_tokens: 7,
      output_tokens: 3,
    });
  });

  it("adds cached input tokens, a side without them counting as none", () => {
    expect(addUsage(ZERO_USAGE, { input_tokens: 10, output_tokens: 2, cached_input_tokens: 8 })).toEqual({
      input_tokens: 10,
      output_tokens: 2,
      cached_input_tokens: 8,
    });
    expect(
      addUsage(
        { input_tokens: 5, output_tokens: 1, cached_input_tokens: 4 },
        { input_tokens: 10, output_tokens: 2, cached_input_tokens: 8 },
      ),
    ).toEqual({ input_tokens: 15, output_tokens: 3, cached_input_tokens: 12 });
  });
});
