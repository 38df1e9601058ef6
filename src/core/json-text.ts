// Reads JSON text a user gave us. A syntax error names its line and column and shows the line with a
// caret under the place; an empty file says so. The same on every Node version: the place is found by
// our own scan, not read from JSON.parse's message (which changed between Node 20 and 22).
import { InputError } from "./errors.ts";

export interface ParseJsonTextOptions {
  /** Line number of the text's first line in its file (a JSONL line); 1 by default. */
  firstLine?: number;
}

/**
 * Parses `text` read from `file`, where `what` names the expected document (`a dramaturg.transcript/v1
 * document`). Throws an {@link InputError} with `place: "line L, column C"` on a syntax error, or
 * saying the file is empty.
 */
export function parseJsonText(
  text: string,
  file: string,
  what: string,
  { firstLine = 1 }: ParseJsonTextOptions = {},
): unknown {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (body.trim() === "")
    throw new InputError(`the ${firstLine === 1 ? "file" : "line"} is empty; expected ${what}`, { file });
  try {
    return JSON.parse(body);
  } catch (error) {
    const found = findSyntaxError(body) ?? fromEngineMessage(body, (error as Error).message);
    const { line, column } = lineAndColumn(body, found.offset);
    throw new InputError(
      `not valid JSON: ${found.reason}; expected ${what}\n${excerpt(body, line, column, firstLine)}`,
      { file, place: `line ${line + firstLine - 1}, column ${column}`, cause: error },
    );
  }
}

/**
 * Parses JSON as Python's `json.dump` writes it: `NaN`, `Infinity` and `-Infinity` outside strings are read
 * as those numbers (TinyTroupe writes a statistic it could not compute as `NaN`). Strict JSON first, so a
 * file that is JSON pays nothing; undefined when the text is not Python's JSON either. Only for files a
 * Python tool wrote: Dramaturg's own formats stay strict JSON.
 */
export function parsePythonJson(text: string): unknown {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  try {
    return JSON.parse(body);
  } catch {
    // Each bare token becomes a string no JSON text can hold (a lone surrogate can only come from an escape,
    // which the scan below leaves as it is), revived as the number.
    const mark = "\uD800py:";
    const tokens: Record<string, number> = { NaN, Infinity, "-Infinity": -Infinity };
    let out = "";
    let inString = false;
    for (let i = 0; i < body.length; i++) {
      const c = body[i]!;
      if (inString) {
        out += c;
        if (c === "\\") out += body[++i] ?? "";
        else if (c === '"') inString = false;
        continue;
      }
      if (c === '"') {
        inString = true;
        out += c;
        continue;
      }
      const token = ["-Infinity", "Infinity", "NaN"].find((t) => body.startsWith(t, i));
      if (token) {
        out += JSON.stringify(`${mark}${token}`);
        i += token.length - 1;
        continue;
      }
      out += c;
    }
    try {
      return JSON.parse(out, (_key, value) =>
        typeof value === "string" && value.startsWith(mark) ? tokens[value.slice(mark.length)] : value,
      );
    } catch {
      return undefined;
    }
  }
}

interface SyntaxProblem {
  offset: number;
  reason: string;
}

class Stop {
  constructor(readonly problem: SyntaxProblem) {}
}

/** The first syntax error of `text` by a strict JSON scan, or undefined if it finds none. */
function findSyntaxError(text: string): SyntaxProblem | undefined {
  const n = text.length;
  let i = 0;
  // Where the text ends early, point just past its last non-blank character rather than at a blank line.
  const end = text.trimEnd().length;
  const fail = (reason: string, offset = i): never => {
    throw new Stop(
      offset >= n ? { offset: end, reason: "the text ends before the JSON is complete" } : { offset, reason },
    );
  };
  const skipBlank = () => {
    while (i < n && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const shown = (c: string) => (c === "\n" || c === "\r" ? "a line break" : JSON.stringify(c));

  const string = () => {
    const start = i;
    i++;
    while (i < n) {
      const c = text[i]!;
      if (c === '"') {
        i++;
        return;
      }
      if (c === "\\") {
        const next = text[i + 1];
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail("a \\u escape needs four hex digits");
          i += 6;
          continue;
        }
        if (next === undefined || !'"\\/bfnrt'.includes(next))
          fail(`unknown escape \\${next ?? ""} in a string`);
        i += 2;
        continue;
      }
      if (c < " ") fail(`${shown(c)} inside a string (write it as \\n or \\t)`);
      i++;
    }
    fail("a string is not closed", start);
  };

  const value = (): void => {
    skipBlank();
    if (i >= n) fail("expected a value");
    const c = text[i]!;
    if (c === "{" || c === "[" || c === '"') {
      if (c === "{") object();
      else if (c === "[") array();
      else string();
      return;
    }
    if (c === "-" || (c >= "0" && c <= "9")) {
      const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
      number.lastIndex = i;
      const match = number.exec(text);
      if (!match) fail("expected a number");
      i += match![0].length;
      return;
    }
    for (const word of ["true", "false", "null"])
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    fail(`expected a value, found ${shown(c)}${c === "'" ? " (JSON strings take double quotes)" : ""}`);
  };

  const object = () => {
    i++;
    skipBlank();
    if (text[i] === "}") {
      i++;
      return;
    }
    for (;;) {
      skipBlank();
      if (i >= n) fail("");
      if (text[i] === "}") fail('a comma before "}" (JSON allows no trailing comma)');
      if (text[i] !== '"') fail(`expected a key in double quotes, found ${shown(text[i]!)}`);
      string();
      skipBlank();
      if (i >= n) fail("");
      if (text[i] !== ":") fail(`expected ":" after the key, found ${shown(text[i]!)}`);
      i++;
      value();
      if (closes("}", "a value")) return;
    }
  };

  /** After an item of an object or array: true at its closing bracket, false at a comma (both passed). */
  const closes = (bracket: "}" | "]", item: string): boolean => {
    skipBlank();
    if (i >= n) fail("");
    if (text[i] === "," || text[i] === bracket) return text[i++] === bracket;
    return fail(`expected "," or "${bracket}" after ${item}, found ${shown(text[i]!)}`);
  };

  const array = () => {
    i++;
    skipBlank();
    if (text[i] === "]") {
      i++;
      return;
    }
    for (;;) {
      skipBlank();
      if (text[i] === "]") fail('a comma before "]" (JSON allows no trailing comma)');
      value();
      if (closes("]", "a list item")) return;
    }
  };

  try {
    value();
    skipBlank();
    if (i < n) fail(`more text after the JSON value, found ${shown(text[i]!)}`);
  } catch (stop) {
    if (stop instanceof Stop) return stop.problem;
    // A document nested too deep for the scan: let the engine's message place it.
    return undefined;
  }
  return undefined;
}

/** The place JSON.parse's message gives: `position N` (Node 20 and later) or `line L column C`. */
function fromEngineMessage(text: string, message: string): SyntaxProblem {
  const reason = message
    .replace(/\s*(in JSON )?at position \d+.*$/s, "")
    .replace(/,\s*".*" is not valid JSON$/s, "");
  const position = /position (\d+)/.exec(message);
  if (position) return { offset: Number(position[1]), reason };
  const lineColumn = /line (\d+) column (\d+)/.exec(message);
  if (lineColumn) {
    const lines = text.split("\n");
    let offset = 0;
    for (let l = 0; l < Number(lineColumn[1]) - 1 && l < lines.length; l++) offset += lines[l]!.length + 1;
    return { offset: offset + Number(lineColumn[2]) - 1, reason };
  }
  return { offset: text.trimEnd().length, reason };
}

/** 1-based line and column of `offset`. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.min(offset, text.length));
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1 };
}

const WIDTH = 100;

/** The line with a caret under `column`; a long line (minified JSON) is cut to a window around it. */
function excerpt(text: string, line: number, column: number, firstLine: number): string {
  let shown = (text.split("\n")[line - 1] ?? "").replace(/\r$/, "").replace(/\t/g, " ");
  let caret = column - 1;
  if (shown.length > WIDTH) {
    const start = Math.max(0, Math.min(caret - WIDTH / 2, shown.length - WIDTH));
    shown = `${start > 0 ? "…" : ""}${shown.slice(start, start + WIDTH)}${start + WIDTH < shown.length ? "…" : ""}`;
    caret = caret - start + (start > 0 ? 1 : 0);
  }
  const number = String(line + firstLine - 1);
  return `  ${number} | ${shown}\n  ${" ".repeat(number.length)} | ${" ".repeat(caret)}^`;
}
