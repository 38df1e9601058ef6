// Reads a file of answers, one row per person (or simulated agent): CSV with a header row (TinyTroupe's
// empirical CSVs as published — `Responder #`, `Vote`, `Explanation`, demographic columns — are such
// files), a JSON array of records, or JSONL (one record per line). Each cell remembers its row, so a bad
// answer is reported at the file, row and column a person has to open.
import { createRequire } from "node:module";
import type * as CsvSync from "csv-parse/sync";
import { InputError, nearestName, parseJsonText, readInputFile } from "../core/index.ts";

export type AnswerFileFormat = "csv" | "json" | "jsonl";

/** A file's answers: its columns (in header order) and its rows. */
export interface AnswerTable {
  file: string;
  format: AnswerFileFormat;
  columns: string[];
  rows: AnswerRow[];
}

/** One row's cells by column, and where the row is (`row 3 (line 4)`, `row 3 ([2])`). */
export interface AnswerRow {
  cells: Record<string, unknown>;
  /** 1-based, the header not counted. */
  row: number;
  /** The place of a cell of this row, for a message. */
  place(column: string): string;
}

/** The format, by the file's extension (`.csv`, `.tsv`, `.json`, `.jsonl`/`.ndjson`), else by its text. */
export function answerFileFormat(file: string, text: string): AnswerFileFormat {
  const extension = /\.([a-z]+)$/i.exec(file)?.[1]?.toLowerCase();
  if (extension === "csv" || extension === "tsv") return "csv";
  if (extension === "jsonl" || extension === "ndjson") return "jsonl";
  if (extension === "json") return "json";
  const start = text.trimStart();
  if (start.startsWith("[")) return "json";
  if (start.startsWith("{")) return "jsonl";
  return "csv";
}

export function readAnswerTable(file: string): AnswerTable {
  return parseAnswerTable(readInputFile(file, "the answers"), file);
}

export function parseAnswerTable(text: string, file: string): AnswerTable {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const format = answerFileFormat(file, body);
  const table =
    format === "csv"
      ? parseCsv(body, file)
      : format === "jsonl"
        ? parseJsonl(body, file)
        : parseJson(body, file);
  if (table.rows.length === 0)
    throw new InputError("the file has no rows; expected a header and at least one answer per question", {
      file,
    });
  return table;
}

let csvModule: typeof CsvSync | undefined;
/** csv-parse is required on first use, so importing dramaturg does not load it. */
function csv(): typeof CsvSync {
  csvModule ??= createRequire(import.meta.url)("csv-parse/sync") as typeof CsvSync;
  return csvModule;
}

function parseCsv(text: string, file: string): AnswerTable {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = csv().parse(text, {
      info: true,
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      delimiter: file.toLowerCase().endsWith(".tsv") ? "\t" : ",",
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (error) {
    const problem = error as Error & { lines?: number };
    throw new InputError(`not valid CSV: ${problem.message.replace(/ (on|at) line \d+.*$/s, "")}`, {
      file,
      place: problem.lines !== undefined ? `line ${problem.lines}` : undefined,
      cause: error,
    });
  }
  if (records.length === 0)
    throw new InputError(
      "the file is empty; expected a header row naming the columns, then one row per answer",
      {
        file,
      },
    );
  const columns = records[0]!.record.map((c) => c.trim());
  const seen = new Set<string>();
  for (const column of columns) {
    if (seen.has(column) && column !== "")
      throw new InputError(`column "${column}" is named twice`, { file, place: "header (line 1)" });
    seen.add(column);
  }
  // csv-parse's `lines` is the line a record ends on; a row's own line is one after the record before it.
  const rows = records.slice(1).map(({ record }, index): AnswerRow => {
    const line = records[index]!.info.lines + 1;
    const cells: Record<string, unknown> = {};
    columns.forEach((column, c) => {
      cells[column] = record[c] ?? "";
    });
    const row = index + 1;
    return { cells, row, place: (column) => `row ${row} (line ${line}), column "${column}"` };
  });
  return { file, format: "csv", columns, rows };
}

function recordColumns(records: readonly Record<string, unknown>[]): string[] {
  const columns = new Set<string>();
  for (const r of records) for (const key of Object.keys(r)) columns.add(key);
  return [...columns];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseJson(text: string, file: string): AnswerTable {
  const expected = "a JSON array of records, one per answer (or JSONL, one record per line)";
  const data = parseJsonText(text, file, expected);
  if (!Array.isArray(data)) throw new InputError(`expected ${expected}`, { file, place: "(root)" });
  const rows = data.map((value, index): AnswerRow => {
    if (!isRecord(value))
      throw new InputError("expected a record of columns (an object)", {
        file,
        place: `row ${index + 1} ([${index}])`,
      });
    const row = index + 1;
    return {
      cells: value,
      row,
      place: (column) =>
        `row ${row} ([${index}]${/^[A-Za-z_]\w*$/.test(column) ? `.${column}` : `[${JSON.stringify(column)}]`})`,
    };
  });
  return { file, format: "json", columns: recordColumns(rows.map((r) => r.cells)), rows };
}

function parseJsonl(text: string, file: string): AnswerTable {
  const rows: AnswerRow[] = [];
  text.split("\n").forEach((lineText, i) => {
    if (lineText.trim() === "") return;
    const line = i + 1;
    const value = parseJsonText(lineText, file, "one JSON record per line", { firstLine: line });
    if (!isRecord(value))
      throw new InputError("expected a record of columns (an object)", { file, place: `line ${line}` });
    const row = rows.length + 1;
    rows.push({ cells: value, row, place: (column) => `row ${row} (line ${line}), column "${column}"` });
  });
  return { file, format: "jsonl", columns: recordColumns(rows.map((r) => r.cells)), rows };
}

/** Fails, naming the file and its header, when `column` is not one of the table's columns. */
export function requireColumn(table: AnswerTable, column: string, flag: string): void {
  if (table.columns.includes(column)) return;
  const near = nearestName(column, table.columns);
  const place = table.format === "csv" ? "header (line 1)" : "row 1";
  throw new InputError(
    `no column "${column}" (${flag})${near ? `; did you mean "${near}"?` : ""}; the file's columns are ${table.columns.map((c) => `"${c}"`).join(", ")}`,
    { file: table.file, place },
  );
}
