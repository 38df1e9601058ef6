// Human labels (issue 39, point 1): the same labels read from YAML, JSON, JSONL and CSV; every bad input
// named by file and line; pass/fail mapped to the raw claim score through the proposition; items grouped
// in a stable order; and `dramaturg schema labels`.
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import {
  LABELS_FORMAT,
  type LabelItem,
  labelItems,
  parseLabels,
  rawLabelScore,
  readLabels,
} from "../../src/calibration/index.ts";
import { readTranscriptFile, type Transcript } from "../../src/core/index.ts";
import { type LoadedPropositions, loadPropositions } from "../../src/propositions/index.ts";
import { cli } from "../cli/run-cli.ts";
import { inputError } from "../input-error.ts";

const FIXTURES = fileURLToPath(new URL("../fixtures/calibration/labels/", import.meta.url));
const ENSEMBLE = fileURLToPath(new URL("../../examples/ensemble/", import.meta.url));
const fixture = (name: string) => `${FIXTURES}${name}`;

let transcript: Transcript;
let propositions: LoadedPropositions;

beforeAll(async () => {
  transcript = readTranscriptFile(`${ENSEMBLE}transcript.json`);
  propositions = await loadPropositions({
    dir: `${ENSEMBLE}propositions`,
    dimensions: ["adherence", "consistency", "fluency", "convergence"],
    agentIds: transcript.agents.map((a) => a.id),
  });
});

/** The labels without their sources: what must not depend on the format. */
function contentOf(file: string) {
  return readLabels([file]).labels.map(({ source: _, ...label }) => label);
}

/** The message of the InputError that validating `file` against the ensemble throws. */
function itemsError(file: string): string {
  return inputError(() => labelItems(readLabels([file]), { transcript, propositions })).message;
}

describe("reading labels", () => {
  it("reads the same labels from YAML, JSON, JSONL and CSV", () => {
    const yaml = contentOf(fixture("good.yaml"));
    expect(yaml).toHaveLength(7);
    expect(contentOf(fixture("good.json"))).toEqual(yaml);
    expect(contentOf(fixture("good.jsonl"))).toEqual(yaml);
    expect(contentOf(fixture("good.csv"))).toEqual(yaml);
  });

  it("keeps each label's file and the line its entry starts on", () => {
    const lines = (name: string) => readLabels([fixture(name)]).labels.map((l) => l.source.line);
    expect(lines("good.yaml")).toEqual([6, 12, 17, 23, 28, 32, 38]);
    expect(lines("good.jsonl")).toEqual([2, 3, 4, 6, 7, 8, 9]);
    expect(lines("good.csv")).toEqual([3, 4, 5, 6, 7, 8, 9]);
    expect(readLabels([fixture("good.csv")]).labels[0]!.source.file).toBe(fixture("good.csv"));
  });

  it("reads an empty CSV cell as absent and a quoted cell with its comma", () => {
    const [first] = readLabels([fixture("good.csv")]).labels;
    expect(first).not.toHaveProperty("agent_id");
    expect(first!.note).toBe("Great question! is a corporate assistant, not Priya");
  });

  it("tells the formats apart by their first line when the extension does not say", () => {
    const csv = "dimension,proposition_id,channel,score\nconvergence,distinct-voices,on-air,4\n";
    expect(parseLabels(csv, "labels.txt")).toEqual([
      {
        dimension: "convergence",
        proposition_id: "distinct-voices",
        channel: "on-air",
        score: 4,
        source: { file: "labels.txt", line: 2 },
      },
    ]);
  });

  it("a CSV record is placed on its first line, past quoted line breaks, blank lines and comments", () => {
    const csv =
      'dimension,proposition_id,channel,score,note\nconvergence,a,x,1,"two\nlines"\n\n# a comment\nconvergence,b,x,2,\n';
    expect(parseLabels(csv, "l.csv").map((l) => l.source.line)).toEqual([2, 6]);
    expect(inputError(() => parseLabels(csv.replace(',1,"', ',10,"'), "l.csv")).message).toMatch(
      /^l\.csv:2: score/,
    );
    expect(inputError(() => parseLabels(csv.replace(",2,", ",12,"), "l.csv")).message).toMatch(
      /^l\.csv:6: score/,
    );
  });
});

describe("bad labels name the file and the line", () => {
  it("a score of 11", () => {
    expect(inputError(() => readLabels([fixture("bad-score-11.csv")])).message).toBe(
      `${fixture("bad-score-11.csv")}:4: score: expected a whole number from 0 to 9, got 11`,
    );
  });

  it("a score of 4.5", () => {
    expect(inputError(() => readLabels([fixture("bad-score-fraction.yaml")])).message).toBe(
      `${fixture("bad-score-fraction.yaml")}:11: score: expected a whole number from 0 to 9, got 4.5`,
    );
  });

  it("a score that is not a number, in CSV, quotes what was written", () => {
    const csv = "dimension,proposition_id,channel,score\nconvergence,distinct-voices,on-air,high\n";
    expect(inputError(() => parseLabels(csv, "l.csv")).message).toBe(
      'l.csv:2: score: expected a whole number from 0 to 9, got the string "high"',
    );
  });

  it("both a score and a verdict", () => {
    expect(inputError(() => readLabels([fixture("bad-score-and-verdict.jsonl")])).message).toBe(
      `${fixture("bad-score-and-verdict.jsonl")}:3: verdict: expected either score or verdict, not both`,
    );
  });

  it("an unknown CSV column, with a suggestion", () => {
    expect(inputError(() => readLabels([fixture("bad-column.csv")])).message).toMatch(
      new RegExp(
        `^${literal(fixture("bad-column.csv"))}:1: unknown column "scroe" \\(did you mean "score"\\?\\); expected any of dimension, proposition_id,`,
      ),
    );
  });

  it("an unknown key in YAML, at the key's line", () => {
    const yaml = `format: ${LABELS_FORMAT}\nlabels:\n  - dimension: adherence\n    proposition_id: persona-style\n    message_id: m10\n    scor: 3\n`;
    expect(inputError(() => parseLabels(yaml, "l.yaml")).message).toMatch(
      /^l\.yaml:6: unknown key "scor" \(did you mean "score"\?\)/,
    );
  });

  it("a label with no target", () => {
    const jsonl = '{"dimension": "adherence", "proposition_id": "persona-style", "score": 3}\n';
    expect(inputError(() => parseLabels(jsonl, "l.jsonl")).message).toMatch(
      /^l\.jsonl:1: missing target; expected message_id/,
    );
  });

  it("an unknown proposition id, with the known ids and a suggestion", () => {
    const message = itemsError(fixture("bad-proposition.yaml"));
    expect(message).toMatch(
      new RegExp(
        `^${literal(fixture("bad-proposition.yaml"))}:9: unknown proposition id "persona-styel" \\(did you mean "persona-style"\\?\\)`,
      ),
    );
    expect(message).toContain("priya-measured-facts");
  });

  it("a message that is not in the transcript", () => {
    expect(itemsError(fixture("bad-message.csv"))).toBe(
      `${fixture("bad-message.csv")}:3: message "m99" is not in the transcript (did you mean "m09"?)`,
    );
  });

  it("the same rater twice on one item, naming both places", () => {
    const file = fixture("bad-same-rater.jsonl");
    expect(itemsError(file)).toBe(
      `${file}:3: rater "ana" already labelled this item (adherence/persona-style on m10) at ${file}:1; one rater labels an item once`,
    );
  });

  it("a target of the wrong kind for the proposition", () => {
    expect(itemsError(fixture("bad-target.json"))).toBe(
      `${fixture("bad-target.json")}:5: fluency is judged on an agent as a whole; give agent_id without message_id; this label targets message "m53"`,
    );
  });

  it("an agent, a channel or a dimension not in what is calibrated", () => {
    const check = (line: string) =>
      inputError(() =>
        labelItems(
          { files: ["l.jsonl"], labels: parseLabels(`${line}\n`, "l.jsonl") },
          { transcript, propositions },
        ),
      ).message;
    expect(
      check('{"dimension": "fluency", "proposition_id": "natural-language", "agent_id": "dove", "score": 3}'),
    ).toMatch(/^l\.jsonl:1: agent "dove" is not in the transcript \(did you mean "dov"\?\)/);
    expect(
      check(
        '{"dimension": "convergence", "proposition_id": "distinct-voices", "channel": "onair", "score": 3}',
      ),
    ).toMatch(/^l\.jsonl:1: channel "onair" is not in the transcript \(did you mean "on-air"\?\)/);
    expect(
      check('{"dimension": "adherance", "proposition_id": "persona-style", "message_id": "m10", "score": 3}'),
    ).toMatch(/^l\.jsonl:1: unknown dimension "adherance" \(did you mean "adherence"\?\)/);
    expect(
      check(
        '{"dimension": "adherence", "proposition_id": "persona-style", "agent_id": "ines", "message_id": "m10", "score": 3}',
      ),
    ).toBe('l.jsonl:1: agent_id "ines" did not send message "m10"; its sender is "priya"');
    expect(
      check('{"dimension": "adherence", "proposition_id": "persona-style", "message_id": "m35", "score": 3}'),
    ).toMatch(/^l\.jsonl:1: message "m35" was sent by "listener:june", who is not an agent/);
    expect(
      check(
        '{"dimension": "consistency", "proposition_id": "consistent-voice", "message_id": "m04", "score": 3}',
      ),
    ).toMatch(/^l\.jsonl:1: consistency is not judged on "m04": it is priya's first message/);
  });
});

describe("items", () => {
  const items = (): LabelItem[] =>
    labelItems(readLabels([fixture("good.yaml")]), { transcript, propositions });

  it("pass and fail map to the raw claim score through the proposition", () => {
    expect(rawLabelScore({ verdict: "pass" }, false)).toBe(9);
    expect(rawLabelScore({ verdict: "fail" }, false)).toBe(0);
    expect(rawLabelScore({ verdict: "pass" }, true)).toBe(0);
    expect(rawLabelScore({ verdict: "fail" }, true)).toBe(9);
    expect(rawLabelScore({ score: 4 }, true)).toBe(4);
    const find = (id: string) => items().find((i) => i.proposition_id === id)!;
    // ines-dry-understatement is a normal claim: a pass is 9.
    expect(find("ines-dry-understatement")).toMatchObject({
      inverted: false,
      raters: [{ rater: "ana", score: 9 }],
    });
    // repetitive-phrasing is inverted: "fails" means the tic is there, so the claim holds, 9.
    expect(find("repetitive-phrasing")).toMatchObject({
      inverted: true,
      raters: [{ rater: "ben", score: 9 }],
    });
  });

  it("groups the raters of an item, with the sender as its agent", () => {
    expect(items().find((i) => i.proposition_id === "priya-assistant-boilerplate")).toEqual({
      dimension: "adherence",
      proposition_id: "priya-assistant-boilerplate",
      agent_id: "priya",
      message_id: "m10",
      inverted: true,
      raters: [
        { rater: "ana", score: 9, source: { file: fixture("good.yaml"), line: 12 } },
        { rater: "ben", score: 8, source: { file: fixture("good.yaml"), line: 17 } },
      ],
    });
  });

  it("names a label without a rater after its file and line, so two unnamed labels are two raters", () => {
    const jsonl = [
      '{"dimension": "convergence", "proposition_id": "distinct-voices", "channel": "on-air", "score": 3}',
      '{"dimension": "convergence", "proposition_id": "distinct-voices", "channel": "on-air", "score": 5}',
    ].join("\n");
    const [item] = labelItems(
      { files: ["l.jsonl"], labels: parseLabels(jsonl, "l.jsonl") },
      { transcript, propositions },
    );
    expect(item!.raters.map((r) => [r.rater, r.score])).toEqual([
      ["l.jsonl:1", 3],
      ["l.jsonl:2", 5],
    ]);
    expect(item).not.toHaveProperty("agent_id");
  });

  it("sorts items by dimension, proposition, agent, then message or channel, whatever the file order", () => {
    const keys = (list: LabelItem[]) =>
      list.map((i) =>
        [i.dimension, i.proposition_id, i.agent_id ?? "", i.message_id ?? i.channel ?? ""].join("/"),
      );
    const forward = items();
    const reversed = readLabels([fixture("good.yaml")]);
    reversed.labels.reverse();
    expect(keys(labelItems(reversed, { transcript, propositions }))).toEqual(keys(forward));
    expect(keys(forward)).toEqual([
      "adherence/ines-dry-understatement/ines/m01",
      "adherence/persona-style/priya/m10",
      "adherence/priya-assistant-boilerplate/priya/m10",
      "consistency/self-contradiction/wendell/m28",
      "convergence/distinct-voices//on-air",
      "fluency/repetitive-phrasing/dov/",
    ]);
  });
});

describe("the bundled ensemble's hand-labelled examples", () => {
  const files = [`${ENSEMBLE}labels/rater-a.yaml`, `${ENSEMBLE}labels/rater-b.csv`];

  it("validate against the ensemble's transcript and propositions, two raters on a few dozen items", () => {
    const items = labelItems(readLabels(files), { transcript, propositions });
    expect(items.length).toBeGreaterThanOrEqual(24);
    const both = items.filter((i) => i.raters.length === 2);
    expect(both.length).toBeGreaterThanOrEqual(20);
    expect(both.some((i) => i.raters[0]!.score !== i.raters[1]!.score)).toBe(true);
    expect(new Set(items.flatMap((i) => i.raters.map((r) => r.rater)))).toEqual(
      new Set(["rater-a", "rater-b"]),
    );
  });
});

describe("dramaturg schema labels", () => {
  it("prints the labels format's JSON Schema, the pass/fail mapping in its description", async () => {
    const r = await cli(["schema", "labels"]);
    expect(r.code, r.stderr).toBe(0);
    const schema = JSON.parse(r.stdout);
    expect(schema.properties.format.const).toBe(LABELS_FORMAT);
    const label = schema.properties.labels.items;
    expect(label.additionalProperties).toBe(false);
    expect(label.properties.score).toMatchObject({ type: "integer", minimum: 0, maximum: 9 });
    expect(label.properties.verdict.enum).toEqual(["pass", "fail"]);
    expect(label.properties.verdict.description).toMatch(/inverted one .* pass → 0 and fail → 9/);
  });
});

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
