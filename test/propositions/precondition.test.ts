import { describe, expect, it } from "vitest";
import { InputError, type PreconditionContext, type Proposition } from "../../src/core/index.ts";
import {
  builtinPropositionSet,
  evaluatePrecondition,
  withPrecondition,
} from "../../src/propositions/index.ts";

const context: PreconditionContext = { agentId: "marta", action: "Berth four is free.", variables: {} };
const proposition = (precondition?: Proposition["precondition"]): Proposition => ({
  id: "p",
  claim: "{{agent_name}} is terse.",
  weight: 1,
  inverted: false,
  precondition,
});

describe("preconditions", () => {
  it("a proposition without a precondition is judged", () => {
    expect(evaluatePrecondition(proposition(), context)).toBe("judge");
  });

  it("a precondition that returns false makes the proposition trivially true", () => {
    expect(
      evaluatePrecondition(
        proposition(() => false),
        context,
      ),
    ).toBe("trivially-true");
  });

  it("a precondition that returns true, null or undefined leaves the proposition to the judge", () => {
    expect(
      evaluatePrecondition(
        proposition(() => true),
        context,
      ),
    ).toBe("judge");
    expect(
      evaluatePrecondition(
        proposition(() => null),
        context,
      ),
    ).toBe("judge");
    expect(
      evaluatePrecondition(
        proposition(() => undefined),
        context,
      ),
    ).toBe("judge");
  });

  it("a precondition sees the context it is evaluated in", () => {
    const onlyLongMessages = proposition((ctx) => (ctx.action?.length ?? 0) > 40);
    expect(evaluatePrecondition(onlyLongMessages, context)).toBe("trivially-true");
    expect(evaluatePrecondition(onlyLongMessages, { ...context, action: "x".repeat(41) })).toBe("judge");
  });

  it("withPrecondition attaches a precondition to one proposition of a copy of the set", async () => {
    const set = await builtinPropositionSet("fluency", "marta");
    const gated = withPrecondition(set, "repetitive-phrasing", () => false);
    expect(evaluatePrecondition(gated.propositions[1]!, context)).toBe("trivially-true");
    expect(evaluatePrecondition(gated.propositions[0]!, context)).toBe("judge");
    expect(set.propositions[1]!.precondition).toBeUndefined();
  });

  it("withPrecondition changes the set's hash", async () => {
    const set = await builtinPropositionSet("fluency", "marta");
    expect(withPrecondition(set, "natural-language", () => false).hash).not.toBe(set.hash);
  });

  it("withPrecondition rejects an id the set does not have", async () => {
    const set = await builtinPropositionSet("fluency", "marta");
    expect(() => withPrecondition(set, "nope", () => false)).toThrow(InputError);
  });
});
