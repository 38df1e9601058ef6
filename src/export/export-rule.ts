// `export:` in dramaturg.yaml: where `eval`, `session analyze`, `converse`, `redteam` and `drift` send their
// scores as they finish. Only zod and the online rule's schema here (both already read by the project file's
// schema at every command's start-up).
import { z } from "zod";
import { ExportTargetSchema } from "../online/online-rule.ts";

/** The commands whose finished runs an `export:` rule can export; a rule without `after` exports them all. */
export const EXPORT_AFTER = ["eval", "session", "converse", "redteam", "drift"] as const;
export type ExportAfter = (typeof EXPORT_AFTER)[number];

export const ExportRuleSchema = ExportTargetSchema.extend({
  after: z
    .array(z.enum(EXPORT_AFTER))
    .min(1)
    .optional()
    .describe("The commands whose runs it exports (default: all of them)"),
}).strict();

export const ExportRulesSchema = z
  .array(ExportRuleSchema)
  .describe("Export each finished run's scores to Langfuse, Phoenix or an OTLP collector (dramaturg export)");

export type ExportRule = z.infer<typeof ExportRuleSchema>;
