// A persona evaluation's result as `eval` prints it and `show` reprints it: a table, Markdown or JSON.
import { writeFileSync } from "node:fs";
import { parseStoreLocation, shownPath } from "../core/index.ts";
import { type EvalResult, type RenderOptions, renderMarkdown, renderTable } from "../personas/index.ts";
import type { Settings } from "./settings.ts";

/** Writes the result in `format` to `out` or stdout; the table and Markdown say what the numbers mean and where they are kept. */
export function emitEvalResult(
  result: EvalResult,
  format: string,
  { out, settings }: { out?: string; settings?: Pick<Settings, "db" | "thresholds"> } = {},
): void {
  const options: RenderOptions = settings
    ? {
        minimum: settings.thresholds.minimum,
        stored: storedAt(settings.db),
      }
    : {};
  const text =
    format === "json"
      ? `${JSON.stringify(result, null, 2)}\n`
      : format === "markdown"
        ? `${renderMarkdown(result, options)}\n`
        : `${renderTable(result, options)}\n`;
  if (out) {
    writeFileSync(out, text);
    process.stderr.write(`wrote ${out}\n`);
  } else process.stdout.write(text);
}

/** A store location as the "stored as" line shows it: a folder relative to here, a URL without its password. */
export function storedAt(db: string): { location: string; kept: boolean } {
  const location = parseStoreLocation(db);
  if (location.kind === "memory") return { location: "memory://", kept: false };
  return { location: location.kind === "folder" ? shownPath(location.path) : location.display, kept: true };
}
