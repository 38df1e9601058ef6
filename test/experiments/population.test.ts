// A population folder: persona files (YAML or JSON) and an optional manifest, read and checked with the
// place of every problem; written whole or not at all.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  loadPopulation,
  POPULATION_FORMAT,
  type PopulationManifest,
  personContentHash,
  personSlug,
  populationAgents,
  writePopulation,
} from "../../src/experiments/population.ts";
import { parseWorldFile, WORLD_FORMAT } from "../../src/sim/index.ts";
import { inputError } from "../input-error.ts";
import { tempDir } from "../temp-dir.ts";

const FIXTURES = new URL("../fixtures/experiments/populations/", import.meta.url).pathname;

const ines = {
  id: "ines-alvarez",
  name: "Inés Álvarez",
  persona: { age: 58, beliefs: ["Rules save lives"] },
};
const tomas = { id: "tomas", name: "Tomas Berg", persona: "A fisherman of 41." };

function manifestOf(people: (typeof ines | typeof tomas)[]): PopulationManifest {
  return {
    format: POPULATION_FORMAT,
    profile: "test",
    size: people.length,
    seed: 0,
    people: people.map((p) => ({
      file: `${p.id}.yaml`,
      id: p.id,
      name: p.name,
      content_hash: personContentHash(p),
    })),
  };
}

describe("personSlug", () => {
  it("lower-cases, drops accents and joins words with single hyphens", () => {
    expect(personSlug("Inés Álvarez")).toBe("ines-alvarez");
    expect(personSlug("  Anne-Marie  O'Neil (2) ")).toBe("anne-marie-o-neil-2");
    expect(personSlug("张伟")).toBe("person");
  });
});

describe("loadPopulation", () => {
  it("reads a hand-written folder without a manifest, in file-name order, ids from names", () => {
    const population = loadPopulation(join(FIXTURES, "hand-written"));
    expect(population.manifest).toBeUndefined();
    expect(population.people.map((p) => [p.id, p.name])).toEqual([
      ["ines-alvarez", "Inés Álvarez"],
      ["rosa-costa", "Rosa Costa"],
      ["tomas", "Tomas Berg"],
    ]);
    expect(population.people[2]!.persona).toMatch(/^A fisherman of 41/);
    expect(population.people[2]!.nudges).toEqual({ variety: "Tell a story you have not told yet." });
    expect(population.people[0]!.content_hash).toMatch(/^[0-9a-f]{16}$/);
  });

  it("its people are a world's agents as they are", () => {
    const agents = populationAgents(loadPopulation(join(FIXTURES, "hand-written")));
    const world = parseWorldFile(
      JSON.stringify({ format: WORLD_FORMAT, agents, channels: [{ id: "harbour" }], steps: 1 }),
      "world.json",
    );
    expect(world.agents.map((a) => a.id)).toEqual(["ines-alvarez", "rosa-costa", "tomas"]);
    expect(world.agents[2]!.nudges).toEqual({ variety: "Tell a story you have not told yet." });
  });

  it("reads back what writePopulation wrote, in the manifest's order, hashes checked", () => {
    const dir = join(tempDir(), "people");
    writePopulation(dir, manifestOf([tomas, ines]), [tomas, ines]);
    expect(readdirSync(dir).sort()).toEqual(["_population.yaml", "ines-alvarez.yaml", "tomas.yaml"]);
    const population = loadPopulation(dir);
    expect(population.manifest?.profile).toBe("test");
    expect(population.people.map(({ id, name, persona }) => ({ id, name, persona }))).toEqual([tomas, ines]);
  });

  it("names the file, line, column and field of a bad persona file", () => {
    const error = inputError(() => loadPopulation(join(FIXTURES, "bad-person")));
    expect(error.file).toBe(join(FIXTURES, "bad-person", "tomas-berg.yaml"));
    expect(error.message).toMatch(
      /tomas-berg\.yaml:5:3: unknown key "varietty"; expected one of anti_convergence, variety/,
    );
  });

  it("names the manifest's line when a person changed since it was written", () => {
    const error = inputError(() => loadPopulation(join(FIXTURES, "bad-manifest")));
    expect(error.message).toMatch(
      /_population\.yaml:9:19: people\[0\]\.content_hash: ines-alvarez\.yaml changed since the manifest was written/,
    );
  });

  it("refuses a manifest that lists a missing file, or leaves one out", () => {
    const dir = join(tempDir(), "people");
    writePopulation(dir, manifestOf([ines, tomas]), [ines, tomas]);
    const manifest = readFileSync(join(dir, "_population.yaml"), "utf8");
    writeFileSync(
      join(dir, "_population.yaml"),
      manifest.replace("file: tomas.yaml", "file: tomas-berg.yaml"),
    );
    expect(inputError(() => loadPopulation(dir)).message).toMatch(
      /_population\.yaml:\d+:\d+: people\[1\]\.file: no file "tomas-berg\.yaml" in the folder/,
    );
    writeFileSync(join(dir, "_population.yaml"), manifest);
    writeFileSync(join(dir, "rosa.yaml"), "name: Rosa\npersona: An accountant.\n");
    expect(inputError(() => loadPopulation(dir)).message).toMatch(
      /people: rosa\.yaml is in the folder but not listed/,
    );
  });

  it("refuses two people with one id", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "a.yaml"), "name: Rosa Costa\npersona: An accountant.\n");
    writeFileSync(join(dir, "b.yaml"), "# second\nname: Rosa  Costa\npersona: Another accountant.\n");
    const error = inputError(() => loadPopulation(dir));
    expect(error.message).toMatch(/b\.yaml:2:7: name: id "rosa-costa" is already the id of a\.yaml/);
  });

  it("refuses a folder with no persona files, and a path that is no folder", () => {
    const dir = tempDir();
    expect(inputError(() => loadPopulation(dir)).message).toMatch(/no persona files/);
    expect(inputError(() => loadPopulation(join(dir, "missing"))).message).toMatch(/not a population folder/);
  });
});

describe("writePopulation", () => {
  it("refuses a folder that is not empty and writes nothing", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "keep.txt"), "mine");
    expect(inputError(() => writePopulation(dir, manifestOf([ines]), [ines])).message).toMatch(
      /is not empty/,
    );
    expect(readdirSync(dir)).toEqual(["keep.txt"]);
  });

  it("writes into an empty folder and leaves no staging folder behind", () => {
    const parent = tempDir();
    const dir = join(parent, "people");
    mkdirSync(dir);
    writePopulation(dir, manifestOf([ines]), [ines]);
    expect(readdirSync(parent)).toEqual(["people"]);
    expect(readFileSync(join(dir, "ines-alvarez.yaml"), "utf8")).toBe(
      "id: ines-alvarez\nname: Inés Álvarez\npersona:\n  age: 58\n  beliefs:\n    - Rules save lives\n",
    );
  });
});
