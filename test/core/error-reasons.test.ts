import { describe, expect, it } from "vitest";
import type { Verdict } from "../../src/core/index.ts";
import { errorReason, formatErrorReasons, summarizeErrors } from "../../src/core/index.ts";

const key = (id: string) => ({ dimension: "adherence", proposition_id: id, agent_id: "marta", trial: 1 });
const ok = (id: string): Verdict => ({ ok: true, key: key(id), score: 7, reasoning: "fine" });
const failed = (id: string, message: string, name = "JudgeError"): Verdict => ({
  ok: false,
  key: key(id),
  error: { name, message },
});

describe("error reasons", () => {
  it("answers that named different unknown ids share one reason", () => {
    expect(errorReason("the answer named claim ids that were not asked: 'id ge', 'id x'")).toBe(
      "the answer named claim ids that were not asked",
    );
    expect(errorReason(`the judge answered a claim id it was not given ("ge")`)).toBe(
      errorReason(`the judge answered a claim id it was not given ("style~2")`),
    );
  });

  it("an apostrophe is not taken for a quote", () => {
    expect(errorReason("the judge's answer left out this claim, and no retries remained")).toBe(
      "the judge's answer left out this claim, and no retries remained",
    );
  });

  it("the detail after the first colon is left out, whatever it quotes", () => {
    expect(
      errorReason(
        `the judge's answer was malformed or out of range: Type validation failed: Value: {"verdicts":[{"id":"a","value":12}]}`,
      ),
    ).toBe("the judge's answer was malformed or out of range");
  });

  it("numbers are replaced but an HTTP status is kept", () => {
    expect(errorReason("the judge did not answer within 60000 ms")).toBe(
      "the judge did not answer within N ms",
    );
    expect(errorReason("the judge provider call failed (HTTP 500): Internal Server Error")).toBe(
      "the judge provider call failed (HTTP 500)",
    );
  });

  it("a verdict key in a fixture message is replaced", () => {
    expect(
      errorReason("no fixture verdict for adherence/style agent=marta message=m12 trial=2 in judge.json"),
    ).toBe("no fixture verdict for <key> in judge.json");
    expect(errorReason("fixture for fluency/plain channel=general trial=1 has no score")).toBe(
      "fixture for <key> has no score",
    );
  });

  it("errored verdicts are grouped by name and reason, most frequent first, with the first key's message as example", () => {
    const verdicts = [
      ok("a"),
      failed("b", "the judge did not answer within 60000 ms"),
      failed("c", `the judge answered a claim id it was not given ("ge")`),
      failed("d", `the judge answered a claim id it was not given ("x")`),
      failed("e", "no fixture verdict for adherence/e agent=marta trial=1", "MissingVerdictError"),
      failed("f", `the judge answered a claim id it was not given ("y")`),
    ];
    expect(summarizeErrors(verdicts)).toEqual([
      {
        name: "JudgeError",
        reason: "the judge answered a claim id it was not given (…)",
        count: 3,
        example: `the judge answered a claim id it was not given ("ge")`,
      },
      {
        name: "JudgeError",
        reason: "the judge did not answer within N ms",
        count: 1,
        example: "the judge did not answer within 60000 ms",
      },
      {
        name: "MissingVerdictError",
        reason: "no fixture verdict for <key>",
        count: 1,
        example: "no fixture verdict for adherence/e agent=marta trial=1",
      },
    ]);
  });

  it("the reasons, their order and their examples do not depend on the order the verdicts came in", () => {
    const verdicts = [
      failed("q", "the judge did not answer within 61000 ms"),
      failed("k", "HTTP 500 from the provider"),
      failed("b", "the judge did not answer within 60000 ms"),
      failed("z", "the judge did not answer within 62000 ms"),
      failed("a", "no fixture verdict for adherence/a agent=marta trial=1", "MissingVerdictError"),
      failed("m", "HTTP 500 from the provider, again"),
      ok("c"),
    ];
    const reasons = summarizeErrors(verdicts);
    expect(summarizeErrors([...verdicts].reverse())).toEqual(reasons);
    expect(summarizeErrors([...verdicts.slice(3), ...verdicts.slice(0, 3)])).toEqual(reasons);
    // Key b sorts first of its group; equal counts go by name, then reason.
    expect(reasons.map((r) => [r.count, r.name, r.example])).toEqual([
      [3, "JudgeError", "the judge did not answer within 60000 ms"],
      [1, "JudgeError", "HTTP 500 from the provider"],
      [1, "JudgeError", "HTTP 500 from the provider, again"],
      [1, "MissingVerdictError", "no fixture verdict for adherence/a agent=marta trial=1"],
    ]);
  });

  it("verdicts that all succeeded have no error reasons", () => {
    expect(summarizeErrors([ok("a"), ok("b")])).toEqual([]);
  });

  it("formatted reasons give the count, the reason and an example that adds something", () => {
    const lines = formatErrorReasons([
      {
        name: "JudgeError",
        reason: "the judge did not answer within N ms",
        count: 38,
        example: "the judge did not answer within 60000 ms",
      },
      { name: "JudgeError", reason: "no verdict", count: 2, example: "no verdict" },
    ]);
    expect(lines).toEqual([
      "38 × the judge did not answer within N ms  e.g. the judge did not answer within 60000 ms",
      "2 × no verdict",
    ]);
  });

  it("formatted reasons past the limit are summed into one line", () => {
    const reasons = ["a", "b", "c"].map((reason, i) => ({
      name: "JudgeError",
      reason,
      count: 3 - i,
      example: reason,
    }));
    expect(formatErrorReasons(reasons, { limit: 1 })).toEqual(["3 × a", "… and 3 more in 2 other reasons"]);
  });
});
