// Checks of flags that several commands share, for callers that bypass commander's own choices.
import { InputError } from "../core/index.ts";

/** `--format` of the listing commands: table (the default) or json. */
export function tableOrJson(format: string | undefined): "table" | "json" {
  const chosen = format ?? "table";
  if (chosen !== "table" && chosen !== "json")
    throw new InputError(`--format must be table or json, got ${JSON.stringify(format)}`);
  return chosen;
}

/** `--limit`: a positive whole number, or `fallback` when the flag is absent. */
export function limitFlag(limit: string | undefined, fallback: number): number {
  const value = limit === undefined ? fallback : Number(limit);
  if (!Number.isInteger(value) || value < 1)
    throw new InputError(`--limit must be a whole number of at least 1, got ${JSON.stringify(limit)}`);
  return value;
}
