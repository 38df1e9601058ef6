import { describe, expect, it } from "vitest";
import { claimVariables, renderClaim } from "../../src/propositions/index.ts";

describe("claim templating", () => {
  it("fills the agent, action, channel and recipient variables", () => {
    const vars = claimVariables({
      agentName: "Marta Ilves",
      action: "Tug on the starboard bow.",
      channelName: "#harbour",
      recipientName: "Ossian",
    });
    const claim = "{{agent_name}} wrote {{action}} in {{channel_name}} to {{recipient_name}}.";
    expect(renderClaim({ claim }, vars)).toBe(
      "Marta Ilves wrote Tug on the starboard bow. in #harbour to Ossian.",
    );
  });

  it("leaves variables without a value as placeholders", () => {
    const vars = claimVariables({ agentName: "Marta Ilves" });
    expect(renderClaim({ claim: "{{agent_name}} answers {{recipient_name}} about {{weather}}." }, vars)).toBe(
      "Marta Ilves answers {{recipient_name}} about {{weather}}.",
    );
  });

  it("leaves out the variables it was not given", () => {
    expect(claimVariables({ channelName: "#harbour" })).toEqual({ channel_name: "#harbour" });
  });

  it("inserts values literally, without expanding templates inside them", () => {
    const vars = claimVariables({ agentName: "Marta", action: "I said {{agent_name}} & <b>left</b>" });
    expect(renderClaim({ claim: "{{agent_name}}: {{action}}" }, vars)).toBe(
      "Marta: I said {{agent_name}} & <b>left</b>",
    );
  });
});
