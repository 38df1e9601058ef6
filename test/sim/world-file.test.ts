// The world format: defaults, channel membership, facilitator timing, and errors with file:line:col.
import { describe, expect, it } from "vitest";
import {
  facilitatorPostsAt,
  loadWorldFile,
  parseWorldFile,
  worldAgentChannels,
} from "../../src/sim/index.ts";
import { inputError } from "../input-error.ts";

const FIXTURES = new URL("../fixtures/worlds/", import.meta.url).pathname;

describe("a world file", () => {
  it("loads an agent's corrections as the keys it sets, none filled in, so dramaturg.yaml's others still apply", () => {
    const world = loadWorldFile(`${FIXTURES}harbour.yml`);
    expect(world.order).toBe("sequential_random");
    expect(world.agents[0]!.corrections).toEqual({ anti_convergence_enabled: true });
    expect(world.agents[1]!.corrections).toBeUndefined();
  });

  it("refuses a correction key that agent_evaluation_config does not have, naming its line", () => {
    const error = inputError(() =>
      parseWorldFile(
        [
          "format: dramaturg.world/v1",
          "agents:",
          "  - id: a",
          "    name: A",
          "    persona: p",
          "    corrections: {gate_adherence_enabled: true, gate_tone_enabled: true}",
          "channels: [{id: one}]",
          "steps: 1",
        ].join("\n"),
        "w.yml",
      ),
    );
    expect(error.message).toMatch(/^w\.yml:6:\d+: .*gate_tone_enabled/);
  });

  it("puts every agent in every channel when none lists its channels", () => {
    const world = loadWorldFile(`${FIXTURES}harbour.yml`);
    expect(worldAgentChannels(world, "rosa")).toEqual(["harbour"]);
  });

  it("puts an agent only in the channels it lists or that list it, once any agent lists channels", () => {
    const world = parseWorldFile(
      [
        "format: dramaturg.world/v1",
        "agents:",
        "  - {id: a, name: A, persona: p, channels: [one]}",
        "  - {id: b, name: B, persona: p}",
        "channels: [{id: one}, {id: two, members: [b]}]",
        "steps: 1",
      ].join("\n"),
    );
    expect([worldAgentChannels(world, "a"), worldAgentChannels(world, "b")]).toEqual([["one"], ["two"]]);
  });

  it("posts a facilitator prompt at its step, every N steps, or at step 1 when neither is given", () => {
    const channel = "c";
    const text = "t";
    const from = "facilitator";
    expect([1, 2, 3, 4].map((s) => facilitatorPostsAt({ channel, text, from, every: 2 }, s))).toEqual([
      true,
      false,
      true,
      false,
    ]);
    expect([1, 2].map((s) => facilitatorPostsAt({ channel, text, from }, s))).toEqual([true, false]);
    expect([1, 3].map((s) => facilitatorPostsAt({ channel, text, from, step: 3 }, s))).toEqual([false, true]);
  });

  it("names the file, line and column of a reference to a channel that does not exist", () => {
    const error = inputError(() => loadWorldFile(`${FIXTURES}bad-channel.yml`));
    expect(error.message).toMatch(/bad-channel\.yml:10:\d+: .*no channel "docks"; expected one of harbour/);
  });

  it("refuses an unknown key with its line", () => {
    const text =
      "format: dramaturg.world/v1\nagents: [{id: a, name: A, persona: p}]\nchannels: [{id: c}]\nsteps: 1\nspeed: 3\n";
    const error = inputError(() => parseWorldFile(text, "w.yml"));
    expect(error.message).toMatch(/^w\.yml:5:1: .*speed/);
  });
});

describe("the example worlds", () => {
  it("load as they are shipped", () => {
    const examples = new URL("../../examples/worlds/", import.meta.url).pathname;
    const world = loadWorldFile(`${examples}office-brainstorm.yml`);
    expect(world.agents.map((a) => a.id)).toEqual(["michael", "dwight", "jim"]);
  });
});
