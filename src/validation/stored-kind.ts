// The validation kind read back: a stored validation by id, the list with each one's verdicts, its reports
// (`validate`'s table and Markdown; its JSON the document exactly as `validate --format json` printed it), the
// API's schemas. Its dashboard pages are web/validation-page.ts's.
import { z } from "zod";
import { type StoredKind, storedListTable } from "../engine/index.ts";
import {
  listValidations,
  loadValidation,
  type StoredValidation,
  type ValidationListRow,
} from "./stored-validation.ts";
import { VALIDATION_FORMAT, ValidationSchema, VERDICTS } from "./validation-format.ts";
import { renderValidationMarkdown, renderValidationTable } from "./validation-report.ts";

const ValidationLine = z
  .object({
    id: z.string(),
    created_at: z.string(),
    status: z.string(),
    name: z.string(),
    experiment: z.string().nullable(),
    questions: z.number().nullable(),
    failed: z.number().nullable(),
    verdicts: z.record(z.enum(VERDICTS), z.number()).nullable(),
  })
  .meta({
    id: "ValidationLine",
    description:
      "a stored validation: its name, the experiment it validates, its questions and how many are not consistent, the count of each verdict",
  });

/** The document without the evaluation's id: what `validate --format json` printed. */
const documentOf = ({ evaluation_id: _, ...document }: StoredValidation) => document;

const dash = (value: number | null) => (value === null ? "–" : String(value));

export const validationKind: StoredKind<StoredValidation, ValidationListRow> = {
  kind: "validation",
  noun: "validation",
  section: "validations",
  format: VALIDATION_FORMAT,
  load: (store, id) => loadValidation({ store, id }),
  list: (store, query) => listValidations({ store, ...query }),
  text: (stored) => renderValidationTable(documentOf(stored)),
  markdown: (stored) => renderValidationMarkdown(documentOf(stored)),
  json: documentOf,
  listTable: (rows) =>
    storedListTable(
      rows,
      "questions  not consistent  name",
      (r) => `${dash(r.questions).padStart(9)}  ${dash(r.failed).padStart(14)}  ${r.name}`,
    ),
  readBack: "evaluation",
  htmlReport: true,
  api: {
    list: {
      summary: "stored validations of simulated answers against real people's, newest first",
      description: "a page of validations: id, status, name, the experiment validated, verdict counts",
      agent: "only validations of this agent (validations name no agent: an agent filter lists none)",
      row: ValidationLine,
    },
    one: {
      summary: "one stored validation's document, as `dramaturg validate --format json` printed it",
      description: "the document",
      conflict: "the validation did not complete, or was stored without its document",
      document: ValidationSchema.meta({
        id: "Validation",
        description: "dramaturg.validation/v1: each question's figures, tests and verdict with its reasons",
      }),
    },
  },
};
