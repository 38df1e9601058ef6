// Writes human labels as a `dramaturg.labels/v1` file — YAML, JSONL or CSV, each as read-labels.ts reads it —
// and exports the labels a store holds for a persona evaluation (the dashboard's labelling page), so that
// `dramaturg calibrate --labels` reads back exactly what people saved.
import { createRequire } from "node:module";
import type * as Yaml from "yaml";
import { InputError } from "../core/index.ts";
import { findEvaluation, type Store } from "../engine/index.ts";
import type { LabelRow } from "../store/index.ts";
import { LABEL_COLUMNS, LABELS_FORMAT, type Label } from "./labels.ts";

export const LABELS_OUTPUT_FORMATS = ["yaml", "jsonl", "csv"] as const;
export type LabelsOutputFormat = (typeof LABELS_OUTPUT_FORMATS)[number];

/** The file extension and media type of each output format. */
export const LABELS_OUTPUT_TYPES: Record<LabelsOutputFormat, { extension: string; mediaType: string }> = {
  yaml: { extension: "yaml", mediaType: "application/yaml; charset=utf-8" },
  jsonl: { extension: "jsonl", mediaType: "application/jsonl; charset=utf-8" },
  csv: { extension: "csv", mediaType: "text/csv; charset=utf-8" },
};

/** A stored label as the labels format writes it: the target's columns it uses, the score, rater and note. */
export function labelOfRow(row: LabelRow): Label {
  const label: Label = { dimension: row.dimension, proposition_id: row.proposition_id };
  if (row.agent_id !== null) label.agent_id = row.agent_id;
  if (row.message_id !== null) label.message_id = row.message_id;
  if (row.channel !== null) label.channel = row.channel;
  label.score = row.score;
  label.rater = row.rater;
  // An empty note is no note: a CSV cell cannot tell them apart, and every format must read back the same.
  if (row.note !== null && row.note !== "") label.note = row.note;
  return label;
}

let yamlModule: typeof Yaml | undefined;
/** yaml (CommonJS) is required on first use, so importing dramaturg does not load it. */
function yaml(): typeof Yaml {
  yamlModule ??= createRequire(import.meta.url)("yaml") as typeof Yaml;
  return yamlModule;
}

/**
 * The labels as a file of the format: YAML `{format, note, labels}`; JSONL a header line then one label per
 * line; CSV a header row of every label column (an empty cell is absent), the note as a `#` comment line.
 */
export function writeLabels(
  labels: readonly Label[],
  format: LabelsOutputFormat,
  { note }: { note?: string } = {},
): string {
  switch (format) {
    case "yaml":
      return yaml().stringify(
        { format: LABELS_FORMAT, ...(note !== undefined ? { note } : {}), labels },
        { lineWidth: 0 },
      );
    case "jsonl":
      return [{ format: LABELS_FORMAT, ...(note !== undefined ? { note } : {}) }, ...labels]
        .map((line) => `${JSON.stringify(line)}\n`)
        .join("");
    case "csv": {
      const comment = note !== undefined ? `# ${LABELS_FORMAT}: ${note.replace(/[\r\n]+/g, " ")}\n` : "";
      const rows = labels.map((label) => LABEL_COLUMNS.map((column) => csvCell(label[column])).join(","));
      return `${comment}${[LABEL_COLUMNS.join(","), ...rows].join("\n")}\n`;
    }
  }
}

/**
 * A CSV cell the reader gives back as written: quoted when it holds a delimiter, a quote or a line break,
 * or starts or ends with white space (the reader trims unquoted cells).
 */
function csvCell(value: string | number | undefined): string {
  if (value === undefined) return "";
  const text = String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export interface ExportStoredLabelsOptions {
  store: Store;
  /** The persona evaluation (or one of its runs), or the first 8+ characters of either id. */
  id: string;
  format: LabelsOutputFormat;
  /** Only this rater's labels. */
  rater?: string;
}

export interface ExportedLabels {
  evaluation_id: string;
  /** How many labels the text holds. */
  labels: number;
  text: string;
}

/**
 * The labels stored for a persona evaluation as a labels file, sorted by target then rater (the store's
 * order), so the same labels give the same bytes. An id that names no persona evaluation is an InputError.
 */
export async function exportStoredLabels({
  store,
  id,
  format,
  rater,
}: ExportStoredLabelsOptions): Promise<ExportedLabels> {
  const evaluation = await findEvaluation(store, id, { kind: "persona", pick: "latest", place: "--run" });
  if (evaluation.kind !== "persona")
    throw new InputError(
      `${evaluation.id.slice(0, 8)} is a ${evaluation.kind} evaluation; labels are of persona evaluations`,
      { place: "--run" },
    );
  const rows = await store.labels.forEvaluation(evaluation.id, rater !== undefined ? { rater } : {});
  const text = writeLabels(rows.map(labelOfRow), format, {
    note: `Labels of persona evaluation ${evaluation.id}, entered on the Dramaturg dashboard's labelling page.`,
  });
  return { evaluation_id: evaluation.id, labels: rows.length, text };
}
