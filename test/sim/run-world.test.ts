// runWorld(): the world's loop checks its input before any model is called.
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/index.ts";
import { parseWorldFile, runWorld } from "../../src/sim/index.ts";
import { scriptedAgentModel, speaker } from "./scripted-agent-model.ts";

const world = (extra = "") =>
  parseWorldFile(
    [
      "format: dramaturg.world/v1",
      "agents: [{id: a, name: A, persona: p}, {id: b, name: B, persona: q}]",
      "channels: [{id: room}]",
      "steps: 1",
      "order: sequential_random",
      extra,
    ].join("\n"),
  );

async function rejection(promise: Promise<unknown>): Promise<InputError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!InputError.isInstance(error)) throw new Error(`expected an InputError, got ${String(error)}`);
  return error;
}

describe("runWorld", () => {
  it("refuses a world with no model for its agents", async () => {
    expect((await rejection(runWorld(world()))).message).toMatch(/no model for the agents/);
  });

  it("refuses an openai-compatible model without a base URL, naming the agents' model", async () => {
    expect((await rejection(runWorld(world(), { model: "openai-compatible:llama" }))).message).toMatch(
      /the agents' model "openai-compatible:llama" needs the server's base URL/,
    );
  });

  it("runs the steps asked for, with the seed given instead of the file's", async () => {
    const order = async (seedLine: string, seed?: number) => {
      const model = scriptedAgentModel(() => []);
      await runWorld(world(seedLine), { model, seed, steps: 6 });
      return model.prompts.map(speaker).join("");
    };
    const overridden = await order("seed: 1", 5);
    expect(overridden).toHaveLength(12);
    expect(overridden).toBe(await order("seed: 5"));
    const fromFile = await Promise.all([1, 2, 3, 4].map((s) => order(`seed: ${s}`)));
    expect(fromFile.some((o) => o !== overridden)).toBe(true);
  });
});
