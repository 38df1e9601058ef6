import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/index.ts";
import { loadPropositionFile, parsePropositionFile } from "../../src/propositions/index.ts";

const invalid = (name: string) =>
  fileURLToPath(new URL(`../fixtures/propositions/invalid/${name}`, import.meta.url));

async function loadError(path: string): Promise<InputError> {
  const error = await loadPropositionFile(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!InputError.isInstance(error)) throw new Error(`expected an InputError, got ${String(error)}`);
  return error as InputError;
}

describe("loadPropositionFile", () => {
  it("returns a valid file with weight and inverted defaulted", async () => {
    const path = fileURLToPath(
      new URL("../fixtures/propositions/project/adherence/_default.yaml", import.meta.url),
    );
    const file = await loadPropositionFile(path);
    expect(file.dimension).toBe("adherence");
    expect(file.first_n).toBe(8);
    expect(file.propositions.map((p) => [p.id, p.weight, p.inverted])).toEqual([
      ["stays-in-role", 1, false],
      ["keeps-register", 0.5, false],
    ]);
  });

  it("names the line and column of an unknown key and lists the keys it accepts", async () => {
    const path = invalid("adherence/unknown-key.yaml");
    const error = await loadError(path);
    expect(error.file).toBe(path);
    expect(error.place).toBe("7:5");
    expect(error.message).toBe(
      `${path}:7:5: unknown key "wieght"; expected one of id, claim, weight, inverted, recommendations_for_improvement`,
    );
  });

  it("names the line and column of a value out of range and what was expected", async () => {
    const path = invalid("adherence/wrong-type.yaml");
    const error = await loadError(path);
    expect(error.message).toBe(`${path}:6:13: weight: expected a number of 0 or more, got -2`);
  });

  it("names the line of a value of the wrong type and shows what it got", async () => {
    const path = invalid("adherence/string-weight.yaml");
    const error = await loadError(path);
    expect(error.message).toBe(`${path}:5:13: weight: expected a number, got the string "heavy"`);
  });

  it("points a missing required key at the proposition that lacks it", async () => {
    const path = invalid("adherence/missing-claim.yaml");
    const error = await loadError(path);
    expect(error.message).toBe(`${path}:5:5: claim: missing; expected a string`);
  });

  it("gives the line of a YAML syntax error", async () => {
    const path = invalid("adherence/syntax-error.yaml");
    const error = await loadError(path);
    expect(error.message).toMatch(new RegExp(`^${escapeRegExp(path)}:\\d+:\\d+: not valid YAML: `));
    const line = Number(error.place!.split(":")[0]);
    expect(line).toBeGreaterThanOrEqual(4);
    expect(line).toBeLessThanOrEqual(7);
  });

  it("rejects a file whose dimension does not match its folder, at the dimension line", async () => {
    const path = invalid("adherence/wrong-dimension.yaml");
    const error = await loadError(path);
    expect(error.place).toBe("2:12");
    expect(error.message).toContain(
      'dimension: "fluency" does not match the folder the file is in; expected adherence',
    );
  });

  it("rejects an agent file whose agent_id differs from its name", async () => {
    const path = invalid("adherence/marta.yaml");
    const error = await loadError(path);
    expect(error.place).toBe("3:11");
    expect(error.message).toContain('agent_id: "ossian" does not match the file name; expected marta');
  });

  it("rejects a _default.yaml that names an agent", async () => {
    const error = await loadError(invalid("adherence/_default.yaml"));
    expect(error.place).toBe("3:11");
    expect(error.message).toContain("applies to every agent");
  });

  it("rejects a duplicate proposition id within one file, naming both lines", async () => {
    const path = invalid("adherence/duplicate-id.yaml");
    const error = await loadError(path);
    expect(error.message).toBe(
      `${path}:5:9: id: duplicate proposition id "stays-in-role"; already defined at ${path}:3:9`,
    );
  });

  it("rejects a misspelt {{variable}} in a claim at its line, suggesting the variable meant", async () => {
    const path = invalid("adherence/misspelt-variable.yaml");
    const error = await loadError(path);
    expect(error.message).toBe(
      `${path}:6:12: claim: unknown template variable {{chanel_name}}; did you mean {{channel_name}}? (the variables are {{agent_name}}, {{action}}, {{channel_name}}, {{recipient_name}})`,
    );
  });

  it("rejects an unknown variable in a recommendation, even one that is no well-formed name", () => {
    const text =
      'dimension: fluency\npropositions:\n  - id: a\n    claim: "{{agent_name}} is fluent."\n    recommendations_for_improvement: "Ask {{agent-name}} to slow down."\n';
    expect(() => parsePropositionFile(text, "x/fluency.yaml")).toThrow(
      "x/fluency.yaml:5:38: recommendations_for_improvement: unknown template variable {{agent-name}}; did you mean {{agent_name}}?",
    );
  });

  it("rejects a target_type that contradicts the dimension", async () => {
    const error = await loadError(invalid("fluency/wrong-target.yaml"));
    expect(error.place).toBe("2:14");
    expect(error.message).toContain(
      "target_type: fluency is judged per agent; expected agent, got environment",
    );
  });

  it("takes the agent id of an agent file from its name when the file does not set one", () => {
    const file = parsePropositionFile(
      "dimension: fluency\npropositions: []\n",
      "propositions/fluency/marta.yaml",
    );
    expect(file.agent_id).toBe("marta");
  });

  it("does not apply the folder rules to a file outside a propositions tree", () => {
    const file = parsePropositionFile("dimension: fluency\nagent_id: marta\n", "notes/extra-checks.yaml");
    expect(file.agent_id).toBe("marta");
    expect(file.propositions).toEqual([]);
  });

  it("reports an unknown dimension with the accepted values", () => {
    expect(() => parsePropositionFile("dimension: adherance\n", "x/file.yaml")).toThrow(
      'x/file.yaml:1:12: dimension: expected one of adherence, consistency, fluency, convergence, ideas_quantity, got the string "adherance"',
    );
  });

  it("reports an empty file as such", () => {
    expect(() => parsePropositionFile("# nothing yet\n", "x/empty.yaml")).toThrow(
      "x/empty.yaml:1:1: the file is empty",
    );
  });

  it("reports the problem nearest the top of the file first", () => {
    const text = "dimension: adherence\nfirst_n: -1\npropositions:\n  - id: a\n    claim: 3\n";
    expect(() => parsePropositionFile(text, "x/two-problems.yaml")).toThrow(
      "x/two-problems.yaml:2:10: first_n: expected a number of 0 or more, got -1",
    );
  });

  it("reports a file that cannot be read as an input error naming it", async () => {
    const error = await loadError(invalid("adherence/does-not-exist.yaml"));
    expect(error.message).toContain("cannot read proposition file (ENOENT)");
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
