// `export:` in dramaturg.yaml: where `eval`, `session analyze` and `converse` send their scores
// as they finish. Only zod here: the project file's schema imports it at every command's start-up.
import { z } from "zod";

export const ExportRuleSchema = z
  .object({
    to: z
      .enum(["langfuse", "phoenix", "otlp"])
      .describe("The tracing tool; its host and keys from the environment"),
    after: z
      .array(z.enum(["eval", "session", "converse"]))
      .min(1)
      .optional()
      .describe("The commands whose runs it exports (default: eval, session analyze and converse)"),
    propositions: z
      .boolean()
      .optional()
      .describe(
        "Also one score per proposition verdict (or judged interaction), beside the dimension scores",
      ),
  })
  .strict();

export const ExportRulesSchema = z
  .array(ExportRuleSchema)
  .describe("Export each finished run's scores to Langfuse, Phoenix or an OTLP collector (dramaturg export)");

export type ExportRule = z.infer<typeof ExportRuleSchema>;
