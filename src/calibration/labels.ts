// The human-labels format `dramaturg.labels/v1` (issue 39): what people say of an agent on a proposition,
// in the shape of a judge-fixtures verdict, so that labels and the judge can be compared item by item.
import { z } from "zod";
import { describeValue } from "../core/index.ts";

export const LABELS_FORMAT = "dramaturg.labels/v1";

/** What a person says of the agent on the proposition, in plain words rather than on the 0–9 scale. */
export const LABEL_VERDICTS = ["pass", "fail"] as const;
export type LabelVerdict = (typeof LABEL_VERDICTS)[number];

/** The columns a CSV labels file may have (any order, any subset), and the keys of a label. */
export const LABEL_COLUMNS = [
  "dimension",
  "proposition_id",
  "agent_id",
  "message_id",
  "channel",
  "score",
  "verdict",
  "rater",
  "note",
] as const;
export type LabelColumn = (typeof LABEL_COLUMNS)[number];

// One wording for every way a score can be wrong (11, 4.5, "high"), so a CSV and a YAML file say the same.
const scoreProblem = (issue: { input?: unknown }) =>
  `expected a whole number from 0 to 9, got ${describeValue(issue.input)}`;

const TARGET =
  "A label has one target: a message (message_id, with agent_id optional: it is the message's sender), " +
  "an agent as a whole (agent_id without message_id, for agent-level propositions such as fluency), or a " +
  "channel (channel alone, for environment propositions such as convergence).";

const VERDICT_MAPPING =
  "What a person says of the agent on the proposition. It is compared on the RAW claim score: for a normal " +
  "proposition pass → 9 and fail → 0; for an inverted one (the claim says what should NOT happen) pass → 0 " +
  "and fail → 9, because passing means the claim does not hold.";

export const LabelSchema = z
  .object({
    dimension: z
      .string()
      .min(1)
      .describe("The dimension of the proposition: adherence, consistency, fluency…"),
    proposition_id: z.string().min(1).describe("The proposition's id in the propositions the judge uses"),
    agent_id: z
      .string()
      .min(1)
      .optional()
      .describe("The agent: with message_id, it must be the message's sender; alone, the agent as a whole"),
    message_id: z.string().min(1).optional().describe("The message labelled (an agent's message)"),
    channel: z.string().min(1).optional().describe("The channel labelled (environment propositions)"),
    score: z
      .number({ error: scoreProblem })
      .int({ error: scoreProblem })
      .min(0, { error: scoreProblem })
      .max(9, { error: scoreProblem })
      .optional()
      .describe("The RAW claim score 0–9 a person gives: how far the claim holds (before inversion)"),
    verdict: z.enum(LABEL_VERDICTS).optional().describe(VERDICT_MAPPING),
    rater: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Who labelled; one rater labels an item once. Without it, the label's file and line name its rater, so two unnamed labels of one item count as two raters",
      ),
    note: z.string().optional().describe("Why: shown beside the judge's reasoning where they disagree"),
  })
  .strict()
  .superRefine((label, ctx) => {
    if (label.score !== undefined && label.verdict !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["verdict"],
        message: "expected either score or verdict, not both",
      });
    if (label.score === undefined && label.verdict === undefined)
      ctx.addIssue({
        code: "custom",
        path: [],
        message:
          "missing score or verdict; expected a score (a whole number from 0 to 9) or a verdict (pass or fail)",
      });
    if (label.channel !== undefined && (label.agent_id !== undefined || label.message_id !== undefined))
      ctx.addIssue({
        code: "custom",
        path: ["channel"],
        message:
          "expected one target: channel (a whole channel) or message_id / agent_id (a message or an agent), not both",
      });
    if (label.channel === undefined && label.agent_id === undefined && label.message_id === undefined)
      ctx.addIssue({
        code: "custom",
        path: [],
        message:
          "missing target; expected message_id (a message), agent_id (an agent as a whole) or channel (a channel)",
      });
  })
  .describe(`One person's label of one item. ${TARGET} Give a score or a verdict, not both.`);

/** The first line of a JSONL labels file, optional: the format and a note. */
export const LabelsHeaderSchema = z
  .object({
    format: z.literal(LABELS_FORMAT),
    note: z
      .string()
      .optional()
      .describe("Free text: who labelled, how, and that it is not a study if it is not"),
  })
  .strict();

export const LabelsFileSchema = z
  .object({
    format: z.literal(LABELS_FORMAT),
    note: z
      .string()
      .optional()
      .describe("Free text: who labelled, how, and that it is not a study if it is not"),
    labels: z.array(LabelSchema),
  })
  .strict()
  .describe(
    `Human labels of a judge's items (${LABELS_FORMAT}), as YAML or JSON; also read as JSONL (one label per line, an optional header line with format and note) and CSV (a header row of columns ${LABEL_COLUMNS.join(", ")}; an empty cell is absent).`,
  );

export type Label = z.infer<typeof LabelSchema>;
export type LabelsFile = z.infer<typeof LabelsFileSchema>;

/** The schemas `dramaturg schema` prints for this folder. */
export const LABELS_JSON_SCHEMAS: Record<string, () => unknown> = {
  labels: () => z.toJSONSchema(LabelsFileSchema, { io: "input" }),
};

/**
 * The raw claim score (0–9) a label stands for. A score is taken as given; a verdict needs to know whether
 * the proposition is inverted, because a pass on an inverted claim ("sounds like a call centre") means the
 * claim does not hold (0), and a fail means it does (9). Calibration compares on this raw scale.
 */
export function rawLabelScore(label: Pick<Label, "score" | "verdict">, inverted: boolean): number {
  if (label.score !== undefined) return label.score;
  const passes = label.verdict === "pass";
  return passes !== inverted ? 9 : 0;
}
