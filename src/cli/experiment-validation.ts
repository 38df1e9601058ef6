// `experiment run` on a scenario whose survey names real answers: each arm's answers validated against them
// (`dramaturg validate`'s comparison), stored as validations of the experiment (the dashboard shows them beside
// it), and printed after the report — so "did the correction make the population more like people?" is one
// command. The real answers are read and checked before the experiment calls a model.
import { parseStoreLocation } from "../core/index.ts";
import type { Store } from "../engine/index.ts";
import type { ExperimentResultDocument, Scenario } from "../experiments/index.ts";

type Validation = typeof import("../validation/index.ts");
type Tables = ReturnType<Validation["readEmpirical"]>;

/** The real answers the scenario's survey names, read and checked now; undefined when it names none. */
export async function readScenarioEmpirical(scenario: Scenario): Promise<Tables | undefined> {
  const v = await import("../validation/index.ts");
  if (v.empiricalQuestions(scenario.survey).length === 0) return undefined;
  return v.readEmpirical(scenario.survey);
}

/**
 * Validates each arm of the finished experiment against the real answers and stores each validation under
 * it; the text printed after the report (nothing for JSON, whose stdout is the report alone: the stored ids go
 * to stderr, and `dramaturg validate … experiment:ID --format json` prints a document).
 */
export async function validateExperimentHere({
  store,
  experimentId,
  document,
  scenario,
  tables,
  format,
}: {
  store: Store;
  experimentId: string;
  document: ExperimentResultDocument;
  scenario: Scenario;
  tables: Tables;
  format: string;
}): Promise<string> {
  const v = await import("../validation/index.ts");
  const arms = v.validateExperimentArms({ document, experimentId, survey: scenario.survey, tables });
  let text = "";
  for (const { arm, validation, answers } of arms) {
    const label = document.arms[arm as keyof ExperimentResultDocument["arms"]]?.label ?? arm;
    const stored = await v.storeValidation({
      store,
      validation,
      name: `${scenario.id}: ${label} against real answers`,
      experiment: experimentId,
      numeric: v.numericAnswers(answers),
    });
    process.stderr.write(
      `validation ${stored.evaluation_id.slice(0, 8)} (${label} against real answers)${parseStoreLocation(store.location).kind === "memory" ? " kept in memory:// only" : ""}\n`,
    );
    if (format === "json") continue;
    const heading = `${label} against real answers`;
    text +=
      format === "markdown"
        ? `\n## ${heading}\n\n${v.renderValidationMarkdown(stored.validation)}`
        : `\n${heading}\n${v.renderValidationTable(stored.validation)}`;
  }
  return text;
}
