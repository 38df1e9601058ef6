// Population profiles and persona fragments: the three built-ins, profile files with their fragments,
// located errors, and how a fragment merges into a persona.
import { describe, expect, it } from "vitest";
import {
  builtinPopulationProfileNames,
  loadPopulationProfile,
  mergePersonaFragment,
  parsePopulationProfile,
  resolvePersonaFragment,
  resolvePopulationProfile,
} from "../../src/experiments/population-profile.ts";
import { inputError } from "../input-error.ts";

const PROFILES = new URL("../fixtures/experiments/populations/profiles/", import.meta.url).pathname;

describe("built-in profiles", () => {
  it("are average customers, difficult customers and a political compass of four quadrants", () => {
    expect(builtinPopulationProfileNames()).toEqual([
      "average-customers",
      "difficult-customers",
      "political-compass",
    ]);
    expect(resolvePopulationProfile("average-customers").description).toMatch(/Big Five/);
    const difficult = resolvePopulationProfile("difficult-customers");
    expect(difficult.fragments.map((f) => f.name)).toEqual(["difficult-person"]);
    expect(difficult.particularities).toMatch(/low in agreeableness, confrontational and sceptical/);
    const compass = resolvePopulationProfile("political-compass");
    expect(compass.segments.map((s) => [s.name, s.fragments.map((f) => f.name)])).toEqual([
      ["left-libertarian", ["economic-left", "libertarian"]],
      ["left-authoritarian", ["economic-left", "authoritarian"]],
      ["right-libertarian", ["economic-right", "libertarian"]],
      ["right-authoritarian", ["economic-right", "authoritarian"]],
    ]);
  });

  it("are copies: changing one does not change the next", () => {
    resolvePopulationProfile("difficult-customers").fragments[0]!.persona.beliefs = [];
    expect(resolvePopulationProfile("difficult-customers").fragments[0]!.persona.beliefs).toHaveLength(4);
  });

  it("an unknown name is an input error listing the built-ins", () => {
    expect(inputError(() => resolvePopulationProfile("happy-customers")).message).toMatch(
      /no built-in profile "happy-customers"; expected one of average-customers, difficult-customers, political-compass/,
    );
  });
});

describe("profile files", () => {
  it("read their fragments: files beside them, built-ins by name, inline ones", () => {
    const profile = loadPopulationProfile(`${PROFILES}night-nurses.profile.yaml`);
    expect(profile.name).toBe("night-nurses-profile");
    expect(profile.particularities).toBe("Every person works nights in a hospital.");
    expect(profile.fragments.map((f) => f.name)).toEqual(["night-shift"]);
    expect(profile.fragments[0]!.persona.behaviors).toEqual(["Drinks coffee at three in the morning"]);
    expect(profile.segments.map((s) => [s.name, s.share, s.fragments.map((f) => f.name)])).toEqual([
      ["veterans", 1, ["difficult-person"]],
      ["newcomers", 2, ["eager"]],
    ]);
  });

  it("a profile without segments has one, all", () => {
    const profile = parsePopulationProfile(
      "format: dramaturg.population-profile/v1\nname: nurses\ndescription: Nurses.\n",
      "nurses.yaml",
    );
    expect(profile.segments).toEqual([{ name: "all", share: 1, fragments: [] }]);
  });

  it("an unknown built-in fragment is named with the file, line and field", () => {
    const file = `${PROFILES}unknown-fragment.profile.yaml`;
    expect(inputError(() => resolvePopulationProfile(file)).message).toBe(
      `${file}:6:17: segments[0].fragments[0]: no built-in fragment "grumpy-person"; expected one of difficult-person, economic-left, economic-right, libertarian, authoritarian, or a fragment file ending in .yaml, .yml or .json`,
    );
  });

  it("a bad value is named with the file, line and field", () => {
    const file = `${PROFILES}bad-share.profile.yaml`;
    expect(inputError(() => resolvePopulationProfile(file)).message).toBe(
      `${file}:6:12: share: expected a number of 1 or more, got 0`,
    );
  });

  it("a fragment may not name anyone", () => {
    const error = inputError(() =>
      parsePopulationProfile(
        "format: dramaturg.population-profile/v1\ndescription: Nurses.\nfragments:\n  - name: x\n    persona:\n      name: Ana\n",
        "p.yaml",
      ),
    );
    expect(error.message).toMatch(/^p\.yaml:\d+:\d+: .*a persona without name/);
  });

  it("--fragment takes a built-in name or a file", () => {
    expect(resolvePersonaFragment("libertarian").name).toBe("libertarian");
    expect(resolvePersonaFragment(`${PROFILES}night-shift.fragment.yaml`).persona.other_facts).toEqual([
      "Has worked nights for years",
    ]);
    expect(inputError(() => resolvePersonaFragment("grumpy")).message).toMatch(
      /no built-in fragment "grumpy"/,
    );
  });
});

describe("mergePersonaFragment", () => {
  const persona = {
    name: "Ana Silva",
    age: 40,
    spouse: null,
    personality: { traits: ["calm"], big_five: { agreeableness: { level: "high", note: "Kind." } } },
    beliefs: ["Hard work pays"],
  };

  it("adds what is absent or null, merges objects, appends new list items, and overrides scalars", () => {
    const merged = mergePersonaFragment(persona, {
      spouse: "Rui",
      personality: { traits: ["calm", "cynical"], big_five: { agreeableness: { level: "low" } } },
      beliefs: ["Hard work pays", "Things get worse"],
      other_facts: ["Was cheated once"],
    });
    expect(merged).toEqual({
      name: "Ana Silva",
      age: 40,
      spouse: "Rui",
      personality: {
        traits: ["calm", "cynical"],
        big_five: { agreeableness: { level: "low", note: "Kind." } },
      },
      beliefs: ["Hard work pays", "Things get worse"],
      other_facts: ["Was cheated once"],
    });
    expect(persona.beliefs).toEqual(["Hard work pays"]);
  });

  it("merging the same fragment twice changes nothing the second time", () => {
    const fragment = resolvePersonaFragment("difficult-person").persona;
    const once = mergePersonaFragment(persona, fragment);
    expect(mergePersonaFragment(once, fragment)).toEqual(once);
  });

  it("a free-text persona becomes its description, with the fragment beside it", () => {
    expect(mergePersonaFragment("A fisherman.", { beliefs: ["Storms come back"] })).toEqual({
      description: "A fisherman.",
      beliefs: ["Storms come back"],
    });
  });
});
