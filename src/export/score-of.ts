// One exported score built from what a reader knows: its stable id from the evaluation and key, the comment
// trimmed and clipped, the pass/fail label, and the evaluation's id among its metadata.
import type { ScoreRow } from "../store/index.ts";
import { type ExportScore, passLabel, stableScoreId } from "./export-score.ts";

export const NINE = { min: 0, max: 9 };
export const ONE = { min: 0, max: 1 };
const COMMENT_LIMIT = 2000;

export interface Read {
  evaluationId: string;
  rows: ScoreRow[];
  propositions: boolean;
}

export function score(
  read: Read,
  key: string,
  fields: Omit<ExportScore, "key" | "id" | "label" | "metadata"> & { metadata?: ExportScore["metadata"] },
): ExportScore {
  const comment = fields.comment?.trim();
  return {
    key,
    id: stableScoreId(read.evaluationId, key),
    ...fields,
    ...(comment ? { comment: clip(comment) } : { comment: undefined }),
    label: passLabel(fields.value, fields.scale, fields.better),
    metadata: { evaluation_id: read.evaluationId, ...fields.metadata },
  };
}

function clip(text: string): string {
  return text.length <= COMMENT_LIMIT ? text : `${text.slice(0, COMMENT_LIMIT - 1)}…`;
}
