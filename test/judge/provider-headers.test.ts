import * as sdk from "@ai-sdk/provider-utils";
import { describe, expect, it } from "vitest";
import { normalizeHeaders, withUserAgentSuffix } from "../../src/judge/provider-headers.ts";

// The command's bundle swaps the SDK's helpers for these (scripts/bundle-cli.mjs); each case must give what
// the SDK's own gives, key order included (it decides the order headers are sent in).
const cases: Array<[string, Parameters<typeof sdk.withUserAgentSuffix>[0]]> = [
  ["nothing", undefined],
  ["an empty record", {}],
  [
    "the OpenAI provider's headers",
    { Authorization: "Bearer k", "OpenAI-Organization": undefined, "OpenAI-Project": "p" },
  ],
  ["a user-agent of the caller's, in another case", { "User-Agent": "my-app/1.0", "x-b": "2", "X-A": "1" }],
  ["values with spaces at the ends", { "x-padded": "  a b \t", "x-empty": "" }],
  [
    "pairs, the later winning",
    [
      ["X-Dup", "one"],
      ["x-dup", "two"],
      ["x-none", undefined],
    ] as never,
  ],
  ["a Headers", new Headers({ "X-From-Headers": "h", "user-agent": "ua" })],
];

describe("provider headers without fetch's Headers", () => {
  it.each(cases)("withUserAgentSuffix: %s gives what the SDK's gives", (_name, headers) => {
    const ours = withUserAgentSuffix(headers as never, "ai-sdk/9.9", "runtime/1");
    const theirs = sdk.withUserAgentSuffix(headers, "ai-sdk/9.9", "runtime/1");
    expect(ours).toEqual(theirs);
    expect(Object.keys(ours)).toEqual(Object.keys(theirs));
  });

  it.each(cases)("normalizeHeaders: %s gives what the SDK's gives", (_name, headers) => {
    expect(normalizeHeaders(headers as never)).toEqual(sdk.normalizeHeaders(headers));
  });

  it("refuses what fetch refuses, as fetch does (a TypeError)", () => {
    for (const bad of [{ "bad name": "v" }, { "x-ok": "line\r\nbreak" }, { "x-ok": "snow ☃" }]) {
      expect(() => sdk.withUserAgentSuffix(bad)).toThrow(TypeError);
      expect(() => withUserAgentSuffix(bad)).toThrow(TypeError);
    }
  });
});
