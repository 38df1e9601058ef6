// Answer files read into typed answers: the three shapes, missing answers, and every bad cell reported at
// its file, row and column.
import { describe, expect, it } from "vitest";
import {
  parseAnswerTable,
  type QuestionSpec,
  questionFromFlags,
  typedAnswers,
} from "../../src/validation/index.ts";
import { inputError } from "../input-error.ts";

const vote: QuestionSpec = questionFromFlags({ column: "Vote", kind: "ordinal", scale: "1-5" });
/** The answers of a number question as a plain list. */
const list = (answers: unknown) => Array.from(answers as ArrayLike<number>);
const csv = (text: string, file = "real.csv") => parseAnswerTable(text, file);

describe("reading answer files", () => {
  it("reads CSV, a JSON array of records and JSONL alike", () => {
    const a = csv('Responder #,Vote,Explanation\n1,4,"yes, I would"\n2,1,no\n');
    const b = parseAnswerTable('[{"Vote": 4}, {"Vote": "1"}]', "sim.json");
    const c = parseAnswerTable('{"Vote": 4}\n\n{"Vote": 1}\n', "sim.jsonl");
    for (const table of [b, c]) {
      const q = typedAnswers(vote, a, table);
      expect(list(q.real)).toEqual([4, 1]);
      expect(list(q.simulated)).toEqual([4, 1]);
    }
    expect(a.columns).toEqual(["Responder #", "Vote", "Explanation"]);
  });

  it("counts empty cells and N/A as missing, not as answers", () => {
    const q = typedAnswers(vote, csv("Vote\n3\n\nN/A\n2\n"), csv('Vote\n"  "\n5\n', "sim.csv"));
    expect(list(q.real)).toEqual([3, 2]);
    expect(q.missing).toEqual({ real: 1, simulated: 1 });
  });

  it("compares columns named differently on the two sides", () => {
    const spec = questionFromFlags({ column: "Vote", simulatedColumn: "response", kind: "numeric" });
    const q = typedAnswers(spec, csv("Vote\n2.5\n"), csv("response\n3\n", "sim.csv"));
    expect(list(q.simulated)).toEqual([3]);
  });

  it("reads labelled scales, yes/no answers, categories and rankings", () => {
    const likert: QuestionSpec = {
      question: "Q",
      column: "Q",
      simulated_column: "Q",
      kind: "ordinal",
      scale: { points: [1, 2, 3], labels: ["disagree", "neutral", "agree"] },
    };
    expect(list(typedAnswers(likert, csv("Q\nAgree\nneutral\n"), csv("Q\n1\n", "s.csv")).real)).toEqual([
      3, 2,
    ]);
    const yes = questionFromFlags({ column: "Q", kind: "binary" });
    expect(list(typedAnswers(yes, csv("Q\nyes\nNo\n1\nfalse\n"), csv("Q\n1\n", "s.csv")).real)).toEqual([
      1, 0, 1, 0,
    ]);
    const cat = typedAnswers(
      questionFromFlags({ column: "Q", kind: "categorical" }),
      csv("Q\nb\na\n"),
      csv("Q\nc\n", "s.csv"),
    );
    expect(cat).toMatchObject({ categories: ["a", "b", "c"] });
    const rank = typedAnswers(
      questionFromFlags({ column: "Vote", kind: "ranking" }),
      csv("Vote\nB-C-A\n"),
      csv("Vote\nA-B-C\n", "s.csv"),
    );
    expect(rank).toMatchObject({ options: ["A", "B", "C"] });
    expect(list((rank as { real: readonly ArrayLike<number>[] }).real[0])).toEqual([1, 2, 0]);
  });
});

describe("bad answers", () => {
  it("names the file and the header for a column that is not there, with the nearest name", () => {
    const e = inputError(() =>
      typedAnswers(
        questionFromFlags({ column: "Votes", kind: "ordinal" }),
        csv("Vote\n1\n"),
        csv("Vote\n1\n", "s.csv"),
      ),
    );
    expect(e.message).toBe(
      'real.csv:header (line 1): no column "Votes" (the real answers\' column); did you mean "Vote"?; the file\'s columns are "Vote"',
    );
  });

  it("names the file, row, line and column of a vote outside the scale", () => {
    const e = inputError(() => typedAnswers(vote, csv("Vote\n1\n"), csv('id,Vote\n1,3\n2,"7"\n', "sim.csv")));
    expect(e.file).toBe("sim.csv");
    expect(e.place).toBe('row 2 (line 3), column "Vote"');
    expect(e.message).toMatch(/"7" is outside the scale 1–5/);
  });

  it("names the JSON path of a bad answer in a JSON array", () => {
    const e = inputError(() =>
      typedAnswers(
        vote,
        parseAnswerTable('[{"Vote": 2}, {"Vote": "high"}]', "r.json"),
        csv("Vote\n1\n", "s.csv"),
      ),
    );
    expect(e.place).toBe("row 2 ([1].Vote)");
    expect(e.message).toMatch(/expected a point of the scale, got "high"/);
  });

  it("refuses a ranking that repeats an option, or leaves one out", () => {
    const ranking = questionFromFlags({ column: "Vote", kind: "ranking" });
    const repeated = inputError(() =>
      typedAnswers(ranking, csv("Vote\nA-B-C\nA-B-A\n"), csv("Vote\nA-B-C\n", "s.csv")),
    );
    expect(repeated.message).toBe(
      'real.csv:row 2 (line 3), column "Vote": option "A" is ranked twice in "A-B-A"; each option is ranked once',
    );
    const short = inputError(() => typedAnswers(ranking, csv("Vote\nA-B-C\n"), csv("Vote\nA-C\n", "s.csv")));
    expect(short.message).toMatch(/s\.csv:row 1 \(line 2\), column "Vote": "A-C" leaves out B/);
  });

  it("refuses a file with no rows, or an empty one", () => {
    expect(inputError(() => csv("Vote\n")).message).toMatch(/^real\.csv: the file has no rows/);
    expect(inputError(() => csv("")).message).toMatch(/^real\.csv: the file is empty/);
    expect(inputError(() => parseAnswerTable("[]", "r.json")).message).toMatch(/no rows/);
  });

  it("refuses an unknown kind and a scale that is not a range, naming the flag", () => {
    expect(inputError(() => questionFromFlags({ column: "V", kind: "likert" })).message).toMatch(
      /^--kind: expected one of numeric, ordinal/,
    );
    expect(
      inputError(() => questionFromFlags({ column: "V", kind: "ordinal", scale: "low-high" })).place,
    ).toBe("--scale");
  });
});
