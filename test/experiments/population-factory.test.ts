// The population factory on a scripted model: stages, the fitted plan, the seed, unique names, fragments,
// parallelism, and a cassette that regenerates a population byte for byte with no model.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { populationFiles, writePopulation } from "../../src/experiments/population.ts";
import { apportion, generatePopulation } from "../../src/experiments/population-factory.ts";
import { resolvePopulationProfile } from "../../src/experiments/population-profile.ts";
import { Cassette, CassetteMissError } from "../../src/judge/index.ts";
import { tempDir } from "../temp-dir.ts";
import { scriptedPopulationModel } from "./scripted-population-model.ts";

const average = () => resolvePopulationProfile("average-customers");

function folderBytes(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), "utf8")]));
}

describe("apportion", () => {
  it("fits whole-number weights to a total exactly, largest remainders first, ties to the earlier", () => {
    expect(apportion([5, 4, 3], 12)).toEqual([5, 4, 3]);
    expect(apportion([5, 4, 3], 7)).toEqual([3, 2, 2]);
    expect(apportion([5, 4, 3], 20)).toEqual([8, 7, 5]);
    expect(apportion([1, 1, 1, 1], 10)).toEqual([3, 3, 2, 2]);
    expect(apportion([0, 0], 3)).toEqual([2, 1]);
    expect(apportion([9, 1], 1)).toEqual([1, 0]);
  });
});

describe("generatePopulation", () => {
  it("asks for dimensions, a plan, then one persona per person, and fits the plan to the size", async () => {
    const model = scriptedPopulationModel();
    const { manifest, people, calls } = await generatePopulation({
      profile: average(),
      size: 7,
      seed: 1,
      model,
    });
    expect(people).toHaveLength(7);
    expect(calls).toBe(2 + 7);
    expect(manifest.dimensions?.map((d) => d.name)).toEqual(["age", "occupation", "openness"]);
    const plan = manifest.segments![0]!.plan;
    expect(plan.map((d) => d.proposed_quantity)).toEqual([5, 4, 3]);
    expect(plan.map((d) => d.quantity)).toEqual([3, 2, 2]);
    expect(plan.reduce((sum, d) => sum + d.quantity, 0)).toBe(7);
    // Every person's characteristics are drawn inside their directive's options and ranges.
    for (const entry of manifest.people!) {
      const directive = plan.find((d) => d.id === entry.directive)!;
      const age = entry.characteristics!.age as number;
      const range = directive.sampled_values.age as { min: number; max: number };
      expect(age).toBeGreaterThanOrEqual(range.min);
      expect(age).toBeLessThanOrEqual(range.max);
    }
    expect(manifest.people!.filter((p) => p.directive === 1)).toHaveLength(3);
    expect(manifest.model).toEqual({ provider: "scripted", model: "population-v1" });
  });

  it("the same seed and the same answers give the same population; another seed another composition", async () => {
    const files = async (seed: number) => {
      const { manifest, people } = await generatePopulation({
        profile: average(),
        size: 9,
        seed,
        model: scriptedPopulationModel(),
        concurrency: 4,
      });
      return Object.fromEntries(populationFiles(manifest, people));
    };
    const first = await files(3);
    expect(await files(3)).toEqual(first);
    expect(await files(4)).not.toEqual(first);
  });

  it("regenerates a recorded population byte for byte from its cassette, with no model", async () => {
    const dir = tempDir();
    const tape = join(dir, "people.cassette.json");
    const recording = Cassette.record(tape);
    const model = scriptedPopulationModel();
    const recorded = await generatePopulation({
      profile: resolvePopulationProfile("political-compass"),
      size: 8,
      seed: 11,
      model,
      cassette: recording,
    });
    recording.save();
    writePopulation(join(dir, "a"), recorded.manifest, recorded.people);

    const replayed = await generatePopulation({
      profile: resolvePopulationProfile("political-compass"),
      size: 8,
      seed: 11,
      cassette: Cassette.replay(tape),
    });
    writePopulation(join(dir, "b"), replayed.manifest, replayed.people);
    expect(folderBytes(join(dir, "b"))).toEqual(folderBytes(join(dir, "a")));
    expect(Object.keys(folderBytes(join(dir, "a")))).toHaveLength(9);
    expect(replayed.manifest.model).toEqual({ provider: "scripted", model: "population-v1" });
    expect(readFileSync(tape, "utf8")).not.toMatch(/apiKey|authorization/i);
  });

  it("a replay whose prompts differ from the recording stops with a cassette miss", async () => {
    const dir = tempDir();
    const tape = join(dir, "people.cassette.json");
    const recording = Cassette.record(tape);
    await generatePopulation({
      profile: average(),
      size: 4,
      seed: 1,
      model: scriptedPopulationModel(),
      cassette: recording,
    });
    recording.save();
    await expect(
      generatePopulation({ profile: average(), size: 4, seed: 2, cassette: Cassette.replay(tape) }),
    ).rejects.toSatisfy((e) => CassetteMissError.isInstance(e));
  });

  it("writes a person again when their name is taken, telling the model the names in use", async () => {
    // Every first answer is "Ana Silva"; an answer that is told the taken names picks its own.
    const model = scriptedPopulationModel({
      nameFor: (prompt, person) => (/choose another/.test(prompt) ? `Person Number${person}` : "Ana Silva"),
    });
    const { people, calls } = await generatePopulation({ profile: average(), size: 4, seed: 5, model });
    expect(people.map((p) => p.name)).toEqual([
      "Ana Silva",
      "Person Number2",
      "Person Number3",
      "Person Number4",
    ]);
    expect(new Set(people.map((p) => p.id)).size).toBe(4);
    expect(calls).toBe(2 + 4 + 3);
    expect(model.prompts.at(-1)).toMatch(/choose another: Ana Silva; Person Number2; Person Number3\./);
  });

  it("numbers a name that stays taken after two rewrites", async () => {
    const model = scriptedPopulationModel({ nameFor: () => "Ana Silva" });
    const { people, manifest } = await generatePopulation({ profile: average(), size: 3, seed: 5, model });
    expect(people.map((p) => p.name)).toEqual(["Ana Silva", "Ana Silva (2)", "Ana Silva (3)"]);
    expect(people.map((p) => p.id)).toEqual(["ana-silva", "ana-silva-2", "ana-silva-3"]);
    expect(people[1]!.persona.name).toBe("Ana Silva (2)");
    expect(manifest.people!.map((p) => p.file)).toEqual([
      "ana-silva.yaml",
      "ana-silva-2.yaml",
      "ana-silva-3.yaml",
    ]);
  });

  it("merges the profile's, the segment's and the extra fragments into each person", async () => {
    const { people, manifest } = await generatePopulation({
      profile: resolvePopulationProfile("political-compass"),
      size: 4,
      seed: 2,
      model: scriptedPopulationModel(),
      fragments: [{ name: "night-owl", persona: { behaviors: ["Works best after midnight"] } }],
    });
    expect(manifest.segments!.map((s) => [s.name, s.size])).toEqual([
      ["left-libertarian", 1],
      ["left-authoritarian", 1],
      ["right-libertarian", 1],
      ["right-authoritarian", 1],
    ]);
    for (const [i, person] of people.entries()) {
      const segment = manifest.people![i]!.segment!;
      const beliefs = person.persona.beliefs as string[];
      const behaviors = person.persona.behaviors as string[];
      expect(beliefs[0]).toBe("Hard work pays"); // the model's own beliefs stay first
      expect(beliefs).toContain(
        segment.startsWith("left")
          ? "Healthcare, housing and education should be guaranteed, not sold"
          : "Taxes should be low and simple",
      );
      expect(beliefs).toContain(
        segment.endsWith("libertarian")
          ? "The state should stay out of private life"
          : "Society needs firm rules and firm enforcement",
      );
      expect(behaviors.at(-1)).toBe("Works best after midnight");
    }
    expect(manifest.fragments).toEqual([
      { name: "night-owl", content_hash: expect.stringMatching(/^[0-9a-f]{16}$/) },
    ]);
    expect(manifest.segments![0]!.fragments!.map((f) => f.name)).toEqual(["economic-left", "libertarian"]);
  });

  it("the difficult-customers profile makes everyone low in agreeableness and says so to the model", async () => {
    const model = scriptedPopulationModel();
    const { people } = await generatePopulation({
      profile: resolvePopulationProfile("difficult-customers"),
      size: 2,
      seed: 0,
      model,
    });
    for (const person of people) {
      const bigFive = (person.persona.personality as { big_five: Record<string, { level: string }> })
        .big_five;
      expect(bigFive.agreeableness!.level).toBe("low");
      expect(person.persona.behaviors).toContain("Speaks in one or two short, curt sentences");
    }
    expect(model.prompts.at(-1)).toMatch(
      /What every person in it has in common: Every person is low in agreeableness/,
    );
  });

  it("writes personas in parallel, never more calls in flight than the concurrency", async () => {
    const model = scriptedPopulationModel();
    await generatePopulation({ profile: average(), size: 12, seed: 0, model, concurrency: 3 });
    expect(model.maxInFlight).toBe(3);
  });

  it("asks again when an answer does not fit its schema", async () => {
    const model = scriptedPopulationModel({
      instead: (output, before) =>
        output === "sampling_dimensions" && before === 0
          ? { dimensions: [{ name: "age", values: [], range: null }] }
          : undefined,
    });
    const { manifest, calls } = await generatePopulation({ profile: average(), size: 2, seed: 0, model });
    expect(calls).toBe(1 + 1 + 1 + 2);
    expect(manifest.dimensions).toHaveLength(3);
  });

  it("refuses a size out of range before any call", async () => {
    const model = scriptedPopulationModel();
    await expect(generatePopulation({ profile: average(), size: 0, model })).rejects.toThrow(/size from 1/);
    expect(model.prompts).toHaveLength(0);
  });
});
