// The persona kind read back: a stored evaluation by its id or one of its runs', its runs (what `runs` lists),
// its reports. Its API and pages are per run (`/api/runs`, `/runs`), with routes of their own.
import { round } from "../core/index.ts";
import type { RunRow, StoredKind } from "../engine/index.ts";
import { loadEvalResult } from "./evaluate-personas.ts";
import { EVAL_RESULT_FORMAT, type EvalResult, renderMarkdown, renderTable } from "./result.ts";

/** The runs as `dramaturg runs` prints them: columns as wide as their widest cell. */
function runsTable(runs: readonly RunRow[]): string {
  const rows = [["run", "agent", "status", "created", "sample", "overall", "errored", "judge", "baseline"]];
  for (const r of runs)
    rows.push([
      r.id.slice(0, 8),
      r.agent_id,
      r.status,
      r.created_at.slice(0, 19).replace("T", " "),
      String(r.sample_size),
      r.overall_score === null ? "–" : round(r.overall_score, 2).toFixed(2),
      String(r.errored),
      r.judge ? `${r.judge.provider}:${r.judge.model}`.slice(0, 40) : "",
      r.is_baseline ? "yes" : "",
    ]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return `${rows
    .map((row) =>
      row
        .map((c, i) => c.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n")}\n`;
}

export const personaKind: StoredKind<EvalResult, RunRow> = {
  kind: "persona",
  noun: "persona evaluation",
  section: "runs",
  format: EVAL_RESULT_FORMAT,
  load: (store, id) => loadEvalResult({ store, id }),
  list: (store, query) => store.runs.list(query),
  text: (result, context) => `${renderTable(result, context)}\n`,
  markdown: (result, context) => `${renderMarkdown(result, context)}\n`,
  json: (result) => result,
  listTable: runsTable,
  readBack: "run",
  htmlReport: true,
};
