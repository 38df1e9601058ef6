import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { InputError, PERSONA_DIMENSIONS } from "../../src/core/index.ts";
import { loadPropositions, propositionSetFor } from "../../src/propositions/index.ts";
import { tempDir } from "../temp-dir.ts";

const fixtures = fileURLToPath(new URL("../fixtures/propositions/", import.meta.url));
const project = join(fixtures, "project");
const agentIds = ["marta", "ossian"];

async function copyOfProject(): Promise<string> {
  const dir = join(tempDir("dramaturg-propositions-"), "somewhere", "else");
  await cp(project, dir, { recursive: true });
  return dir;
}

describe("loadPropositions", () => {
  it("lets an agent file override the default's settings and keeps the rest", async () => {
    const result = await loadPropositions({ dir: project, dimensions: ["adherence"], agentIds });
    const marta = propositionSetFor(result, "adherence", "marta")!;
    expect(marta).toMatchObject({
      dimension: "adherence",
      agent_id: "marta",
      include_personas: true,
      hard: true,
      target_type: "agent",
      first_n: 8,
      last_n: 40,
      double_check: true,
    });
  });

  it("appends the agent file's propositions after the default's, in file order", async () => {
    const result = await loadPropositions({ dir: project, dimensions: ["adherence"], agentIds });
    const marta = propositionSetFor(result, "adherence", "marta")!;
    expect(marta.propositions.map((p) => p.id)).toEqual([
      "stays-in-role",
      "keeps-register",
      "nautical-vocabulary",
      "talks-like-a-manual",
    ]);
    expect(marta.propositions[3]).toMatchObject({ inverted: true, weight: 1 });
    expect(marta.sources).toEqual([
      join(project, "adherence/_default.yaml"),
      join(project, "adherence/marta.yaml"),
    ]);
  });

  it("gives an agent without its own file the default set with the default settings", async () => {
    const result = await loadPropositions({ dir: project, dimensions: ["adherence"], agentIds });
    const ossian = propositionSetFor(result, "adherence", "ossian")!;
    expect(ossian.propositions.map((p) => p.id)).toEqual(["stays-in-role", "keeps-register"]);
    expect(ossian).toMatchObject({ hard: false, first_n: 8, last_n: 100, double_check: false });
    expect(ossian.sources).toEqual([join(project, "adherence/_default.yaml")]);
  });

  it("merges an agent file onto the built-in set when the folder has no _default.yaml", async () => {
    const result = await loadPropositions({ dir: project, dimensions: ["consistency"], agentIds });
    const ossian = propositionSetFor(result, "consistency", "ossian")!;
    expect(ossian.sources).toEqual(["builtin:consistency", join(project, "consistency/ossian.yaml")]);
    expect(ossian.include_personas).toBe(true);
    expect(ossian.propositions.map((p) => p.id)).toEqual([
      "consistent-positions",
      "consistent-voice",
      "self-contradiction",
      "remembers-the-storm",
    ]);
    expect(propositionSetFor(result, "consistency", "marta")!.include_personas).toBe(false);
  });

  it("uses the built-in sets when no folder is given", async () => {
    const result = await loadPropositions({ dimensions: [...PERSONA_DIMENSIONS], agentIds });
    expect([...result.sets.agent.get("marta")!.keys()]).toEqual(["adherence", "consistency", "fluency"]);
    expect([...result.sets.environment.keys()]).toEqual(["convergence", "ideas_quantity"]);
    expect(propositionSetFor(result, "convergence")!.sources).toEqual(["builtin:convergence"]);
    expect(result.warnings).toEqual([]);
  });

  it("resolves environment dimensions once, without an agent", async () => {
    const result = await loadPropositions({ dir: project, dimensions: ["convergence"], agentIds });
    const set = propositionSetFor(result, "convergence", "marta")!;
    expect(set.agent_id).toBeUndefined();
    expect(set.target_type).toBe("environment");
    expect(set.propositions.map((p) => p.id)).toEqual(["distinct-voices"]);
  });

  it("gives no set where there is neither a file nor a built-in to start from", async () => {
    const result = await loadPropositions({
      dir: project,
      dimensions: ["consistency", "fluency"],
      agentIds,
      builtins: false,
    });
    expect(propositionSetFor(result, "consistency", "ossian")!.sources).toEqual([
      join(project, "consistency/ossian.yaml"),
    ]);
    expect(propositionSetFor(result, "consistency", "marta")).toBeUndefined();
    expect(propositionSetFor(result, "fluency", "marta")).toBeUndefined();
    expect(result.sets.agent.get("marta")!.size).toBe(0);
  });

  it("warns about a file for an agent that is not in the transcript instead of failing", async () => {
    const result = await loadPropositions({ dir: project, dimensions: ["adherence"], agentIds });
    expect(result.warnings).toContain(
      `${join(project, "adherence/petra.yaml")}: no agent "petra" in the transcript; file ignored`,
    );
    expect(result.sets.agent.has("petra")).toBe(false);
  });

  it("warns about a folder that is not a dimension", async () => {
    const result = await loadPropositions({ dir: project, dimensions: ["adherence"], agentIds });
    expect(
      result.warnings.some((w) => w.startsWith(`${join(project, "notes")}: not a dimension folder`)),
    ).toBe(true);
  });

  it("rejects a proposition id defined in both the default and the agent file, naming both files", async () => {
    const dir = join(fixtures, "duplicate-across");
    const error = await loadPropositions({ dir, dimensions: ["adherence"], agentIds }).catch(
      (e: unknown) => e,
    );
    expect(InputError.isInstance(error)).toBe(true);
    const agentFile = join(dir, "adherence/marta.yaml");
    const defaultFile = join(dir, "adherence/_default.yaml");
    expect((error as InputError).message).toBe(
      `${agentFile}:6:9: id: duplicate proposition id "keeps-register" in the merged adherence set; already defined at ${defaultFile}:5:9`,
    );
  });

  it("rejects an agent file that redefines a built-in proposition id", async () => {
    const dir = await copyOfProject();
    await writeFile(
      join(dir, "consistency/marta.yaml"),
      "dimension: consistency\npropositions:\n  - id: consistent-voice\n    claim: Marta sounds like Marta.\n",
    );
    const error = await loadPropositions({ dir, dimensions: ["consistency"], agentIds }).catch(
      (e: unknown) => e,
    );
    expect((error as InputError).message).toMatch(
      /marta\.yaml:3:9: id: duplicate proposition id "consistent-voice".*builtin:consistency:\d+:\d+$/,
    );
  });

  it("fails on a missing propositions folder", async () => {
    const error = await loadPropositions({
      dir: join(fixtures, "nowhere"),
      dimensions: ["adherence"],
      agentIds,
    }).catch((e: unknown) => e);
    expect(InputError.isInstance(error)).toBe(true);
    expect((error as InputError).message).toContain("propositions folder not found");
  });

  it("asks for an agent id when picking the set of an agent dimension", async () => {
    const result = await loadPropositions({ dimensions: ["adherence"], agentIds });
    expect(() => propositionSetFor(result, "adherence")).toThrow("adherence is judged per agent");
  });
});

describe("proposition hashes", () => {
  it("stay the same when the propositions folder is moved", async () => {
    const dimensions = [...PERSONA_DIMENSIONS];
    const here = await loadPropositions({ dir: project, dimensions, agentIds });
    const moved = await loadPropositions({ dir: await copyOfProject(), dimensions, agentIds });
    expect(moved.hash).toBe(here.hash);
    expect(propositionSetFor(moved, "adherence", "marta")!.hash).toBe(
      propositionSetFor(here, "adherence", "marta")!.hash,
    );
    expect(propositionSetFor(moved, "adherence", "marta")!.sources).not.toEqual(
      propositionSetFor(here, "adherence", "marta")!.sources,
    );
  });

  it("change when a claim changes", async () => {
    const dir = await copyOfProject();
    const before = await loadPropositions({ dir, dimensions: ["adherence"], agentIds });
    const path = join(dir, "adherence/marta.yaml");
    await writeFile(
      path,
      (await readFile(path, "utf8")).replace("vocabulary of a harbour pilot", "vocabulary of a river pilot"),
    );
    const after = await loadPropositions({ dir, dimensions: ["adherence"], agentIds });
    expect(propositionSetFor(after, "adherence", "marta")!.hash).not.toBe(
      propositionSetFor(before, "adherence", "marta")!.hash,
    );
    expect(propositionSetFor(after, "adherence", "ossian")!.hash).toBe(
      propositionSetFor(before, "adherence", "ossian")!.hash,
    );
    expect(after.hash).not.toBe(before.hash);
  });

  it("change when a setting changes", async () => {
    const dir = await copyOfProject();
    const before = await loadPropositions({ dir, dimensions: ["adherence"], agentIds });
    const path = join(dir, "adherence/_default.yaml");
    await writeFile(path, (await readFile(path, "utf8")).replace("first_n: 8", "first_n: 9"));
    const after = await loadPropositions({ dir, dimensions: ["adherence"], agentIds });
    expect(propositionSetFor(after, "adherence", "ossian")!.hash).not.toBe(
      propositionSetFor(before, "adherence", "ossian")!.hash,
    );
  });

  it("are equal for agents that share the same resolved set", async () => {
    const result = await loadPropositions({ dimensions: ["fluency"], agentIds });
    expect(propositionSetFor(result, "fluency", "marta")!.hash).toBe(
      propositionSetFor(result, "fluency", "ossian")!.hash,
    );
  });
});
