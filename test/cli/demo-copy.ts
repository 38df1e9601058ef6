// A throwaway copy of the ensemble demo (transcript, propositions, fixtures, baselines, project file)
// that a test may edit; relative paths inside it keep working, so its baselines still apply.
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../temp-dir.ts";
import { ROOT } from "./run-cli.ts";

/** Copies the demo into `parent` (by default a folder removed when the current test ends). */
export function copyDemo(parent = tempDir("dramaturg-demo-")): string {
  const dir = join(parent, "ensemble");
  cpSync(`${ROOT}examples/ensemble`, dir, {
    recursive: true,
    filter: (src) => !src.includes(".dramaturg"),
  });
  return dir;
}

// biome-ignore lint/suspicious/noExplicitAny: tests edit arbitrary JSON documents in place.
export function editJson(file: string, edit: (value: any) => void): void {
  const value = JSON.parse(readFileSync(file, "utf8"));
  edit(value);
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** Adherence propositions of Dov's that are inverted: lowering his adherence means raising their raw scores. */
const DOV_INVERTED = new Set(["breaks-character", "dov-flat-delivery"]);

/** Shifts every adherence verdict of Dov's so his adherence falls by `points` (no score is clipped for 2 or 3). */
export function lowerDovAdherence(verdict: { score?: number; proposition_id: string }, points: number) {
  verdict.score = DOV_INVERTED.has(verdict.proposition_id)
    ? verdict.score! + points
    : verdict.score! - points;
}

export const isDovAdherence = (v: { dimension: string; agent_id?: string }) =>
  v.dimension === "adherence" && v.agent_id === "dov";
