// The experiment kind read back: a stored experiment by id, the list with its headline figures, its reports
// (`experiment report ID`'s: table, Markdown and JSON, at the default arms and alpha), the API's schemas.
// Its dashboard pages are web/experiment-page.ts's; `--format html` prints its text, as a simulation's does.
import { z } from "zod";
import { type StoredKind, storedListTable } from "../engine/index.ts";
import { EXPERIMENT_COMPARISON_FORMAT, EXPERIMENT_RESULT_FORMAT } from "./compare.ts";
import { formatSigned } from "./comparison-report.ts";
import { type ExperimentListRow, listExperiments } from "./experiment-list.ts";
import {
  experimentReport,
  renderExperimentReportMarkdown,
  renderExperimentReportTable,
} from "./experiment-report.ts";
import { loadExperimentResult, type StoredExperiment } from "./stored-experiment.ts";

const ExperimentLine = z
  .object({
    id: z.string(),
    created_at: z.string(),
    status: z.string(),
    scenario: z.string(),
    title: z.string().nullable(),
    scale: z.number().nullable(),
    seed: z.number().nullable(),
    model: z.string().nullable(),
    judge: z.string().nullable(),
    environments: z.number().nullable(),
    metrics: z.number().nullable(),
    significant: z.number().nullable(),
    headline: z
      .object({
        metric: z.string(),
        delta: z.number().nullable(),
        p: z.number().nullable(),
        significant: z.boolean().nullable(),
      })
      .nullable(),
    errored: z.number(),
  })
  .meta({
    id: "ExperimentLine",
    description:
      "a stored experiment: its scenario, scale, seed and models, and once it completed its environments per arm, the metrics that differ significantly (p < 0.05) and its first metric's comparison",
  });

const dash = (value: number | null) => (value === null ? "–" : String(value));

/** The report of a stored experiment, as `experiment report ID` makes it without flags. */
const reportOf = ({ document }: StoredExperiment) => experimentReport(document).report;

export const experimentKind: StoredKind<StoredExperiment, ExperimentListRow> = {
  kind: "experiment",
  noun: "experiment",
  section: "experiments",
  format: EXPERIMENT_RESULT_FORMAT,
  load: (store, id) => loadExperimentResult({ store, id }),
  list: (store, query) => listExperiments({ store, ...query }),
  text: (stored) => renderExperimentReportTable(reportOf(stored)),
  markdown: (stored) => renderExperimentReportMarkdown(reportOf(stored)),
  json: reportOf,
  listTable: (rows) =>
    storedListTable(rows, "scale  n/arm  significant  scenario", (r) => {
      const significant = r.metrics === null ? "–" : `${r.significant} of ${r.metrics}`;
      const h = r.headline;
      const headline =
        h === null ? "" : ` · ${h.metric} ${formatSigned(h.delta)}${h.significant === true ? "*" : ""}`;
      return `${dash(r.scale).padStart(5)}  ${dash(r.environments).padStart(5)}  ${significant.padStart(11)}  ${r.scenario}${headline}`;
    }),
  readBack: "evaluation",
  htmlReport: false,
  api: {
    list: {
      summary: "stored treatment-versus-control experiments, newest first",
      description:
        "a page of experiments: id, status, scenario, scale, seed, models, environments per arm, the metrics that differ significantly, the first metric's comparison",
      agent: "only experiments this agent took part in (one of its people, by id)",
      row: ExperimentLine,
    },
    one: {
      summary: "one stored experiment's report, as `dramaturg experiment report ID --format json` prints it",
      description: "the report",
      conflict: "the experiment did not complete, or was stored without its document",
      document: z
        .looseObject({
          format: z.literal(EXPERIMENT_COMPARISON_FORMAT),
          comparisons: z.array(z.looseObject({ metric: z.string() })),
          experiment: z.looseObject({ scenario: z.string().nullable() }),
        })
        .meta({
          id: "ExperimentReport",
          description:
            "dramaturg.experiment-comparison/v1 (each metric's Welch test, treatment − control) with the experiment it comes from: scenario, arms, alpha, scale, seed",
        }),
    },
  },
};
