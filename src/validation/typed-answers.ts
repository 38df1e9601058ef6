// A question's cells made typed answers of its kind, on both sides. An empty cell, null or N/A is a missing
// answer (counted, not compared: TinyTroupe's extractor writes N/A when it cannot tell); anything else that
// is not an answer of the kind — a vote outside the scale, a ranking that repeats an option — is bad input,
// reported at its file, row and column.
import { InputError } from "../core/index.ts";
import { type AnswerTable, requireColumn } from "./answer-table.ts";
import type { QuestionAnswers } from "./compare-question.ts";
import type { QuestionSpec } from "./validation-spec.ts";

const MISSING = /^\s*(n\/?a|null|none)?\s*$/i;

interface Side {
  table: AnswerTable;
  column: string;
}

/** Both sides' answers to one question, typed; throws `InputError` at the first bad cell. */
export function typedAnswers(spec: QuestionSpec, real: AnswerTable, simulated: AnswerTable): QuestionAnswers {
  requireColumn(real, spec.column, "the real answers' column");
  requireColumn(simulated, spec.simulated_column, "the simulated answers' column");
  const sides: [Side, Side] = [
    { table: real, column: spec.column },
    { table: simulated, column: spec.simulated_column },
  ];
  const base = { question: spec.question };
  switch (spec.kind) {
    case "categorical": {
      const [r, s] = sides.map((side) => cellsOf(side, (cell) => String(cell).trim()));
      const given = spec.options;
      const categories = given ?? [...new Set([...r!.answers, ...s!.answers])].sort();
      const index = new Map(categories.map((c, i) => [c, i]));
      const toIndex = (side: Side, typed: Typed<string>) =>
        Int32Array.from(typed.answers, (c, i) => {
          const at = index.get(c);
          if (at === undefined)
            throw bad(side, typed.rows[i]!, `"${c}" is not one of the categories ${categories.join(", ")}`);
          return at;
        });
      return {
        ...base,
        kind: "categorical",
        categories,
        real: toIndex(sides[0], r!),
        simulated: toIndex(sides[1], s!),
        missing: { real: r!.missing, simulated: s!.missing },
      };
    }
    case "ranking": {
      let options = spec.options;
      const typed = sides.map((side) =>
        cellsOf(side, (cell, row) => {
          const order = String(cell)
            .split("-")
            .map((o) => o.trim());
          options ??= [...order].sort();
          return rankingOf(side, row, String(cell), order, options);
        }),
      );
      return {
        ...base,
        kind: "ranking",
        options: options ?? [],
        real: typed[0]!.answers,
        simulated: typed[1]!.answers,
        missing: { real: typed[0]!.missing, simulated: typed[1]!.missing },
      };
    }
    default: {
      const [r, s] = sides.map((side) => numbersOf(spec, side));
      return {
        ...base,
        kind: spec.kind,
        ...(spec.scale ? { scale: spec.scale.points } : {}),
        real: r!.answers,
        simulated: s!.answers,
        missing: { real: r!.missing, simulated: s!.missing },
      };
    }
  }
}

interface Typed<T> {
  answers: T[];
  /** Each answer's row (its index from 0), for a message about it. */
  rows: number[];
  missing: number;
}

const isMissing = (cell: unknown) =>
  cell === undefined || cell === null || (typeof cell === "string" && MISSING.test(cell));

function cellsOf<T>({ table, column }: Side, read: (cell: unknown, row: number) => T): Typed<T> {
  const out: Typed<T> = { answers: [], rows: [], missing: 0 };
  const cells = table.cells(column);
  for (let row = 0; row < cells.length; row++) {
    const cell = cells[row];
    if (isMissing(cell)) {
      out.missing++;
      continue;
    }
    out.answers.push(read(cell, row));
    out.rows.push(row);
  }
  return out;
}

function bad({ table, column }: Side, row: number, message: string): InputError {
  return new InputError(message, { file: table.file, place: table.place(row, column) });
}

/** A number answer's cells, read fast (no answer object per cell): the typed side and its missing count. */
function numbersOf(spec: QuestionSpec, side: Side): { answers: Float64Array; missing: number } {
  const cells = side.table.cells(side.column);
  const answers = new Float64Array(cells.length);
  const points = spec.scale && !spec.scale.labels ? spec.scale.points : undefined;
  const [low, high] = points ? [points[0]!, points.at(-1)!] : [0, 0];
  let k = 0;
  let missing = 0;
  for (let row = 0; row < cells.length; row++) {
    const cell = cells[row];
    // The common case first: a plain number, or a string of one, on the scale when there is one.
    const fast =
      typeof cell === "number" ? cell : typeof cell === "string" && cell !== "" ? Number(cell) : Number.NaN;
    if (
      spec.kind !== "binary" &&
      Number.isFinite(fast) &&
      (!points || (Number.isInteger(fast) && fast >= low && fast <= high))
    ) {
      answers[k++] = fast;
      continue;
    }
    if (isMissing(cell)) {
      missing++;
      continue;
    }
    answers[k++] = numberOf(spec, side, row, cell);
  }
  return { answers: answers.slice(0, k), missing };
}

const BINARY: Record<string, number> = { "1": 1, "0": 0, true: 1, false: 0, yes: 1, no: 0, y: 1, n: 0 };

function numberOf(spec: QuestionSpec, side: Side, row: number, cell: unknown): number {
  const text = typeof cell === "string" ? cell.trim() : cell;
  if (spec.kind === "binary") {
    const value = BINARY[String(text).toLowerCase()];
    if (value === undefined)
      throw bad(side, row, `expected a yes/no answer (1/0, true/false, yes/no), got ${JSON.stringify(cell)}`);
    return value;
  }
  const labels = spec.scale?.labels;
  if (labels && typeof text === "string") {
    const at = labels.findIndex((l) => l.toLowerCase() === text.toLowerCase());
    if (at >= 0) return at + 1;
  }
  const value =
    typeof text === "number" ? text : typeof text === "string" && text !== "" ? Number(text) : Number.NaN;
  if (!Number.isFinite(value))
    throw bad(
      side,
      row,
      `expected ${spec.kind === "ordinal" ? "a point of the scale" : "a number"}${labels ? ` (${labels.join(", ")})` : ""}, got ${JSON.stringify(cell)}`,
    );
  const points = spec.scale?.points;
  if (points && !points.includes(value))
    throw bad(
      side,
      row,
      `${JSON.stringify(cell)} is outside the scale ${points[0]}–${points.at(-1)}; expected one of ${points.join(", ")}`,
    );
  return value;
}

function rankingOf(
  side: Side,
  row: number,
  cell: string,
  order: string[],
  options: readonly string[],
): Int32Array {
  const seen = new Set<string>();
  for (const option of order) {
    if (option === "")
      throw bad(
        side,
        row,
        `${JSON.stringify(cell)} has an empty option; expected options joined by "-" such as A-C-B`,
      );
    if (seen.has(option))
      throw bad(
        side,
        row,
        `option "${option}" is ranked twice in ${JSON.stringify(cell)}; each option is ranked once`,
      );
    if (!options.includes(option))
      throw bad(
        side,
        row,
        `"${option}" in ${JSON.stringify(cell)} is not one of the options ${options.join(", ")}`,
      );
    seen.add(option);
  }
  if (seen.size !== options.length) {
    const left = options.filter((o) => !seen.has(o));
    throw bad(
      side,
      row,
      `${JSON.stringify(cell)} leaves out ${left.join(", ")}; expected a ranking of all of ${options.join(", ")}`,
    );
  }
  return Int32Array.from(order, (o) => options.indexOf(o));
}
