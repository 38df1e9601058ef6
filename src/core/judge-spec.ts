// The one parser of a judge spec (`--judge`, `judge.model`, DRAMATURG_JUDGE): a model of a provider
// (`openai:gpt-5-mini`) or a fixtures file to replay (`fixtures:judge.yaml`).
import { resolve } from "node:path";
import { editDistance } from "./edit-distance.ts";
import { InputError } from "./errors.ts";

export const JUDGE_PROVIDERS = ["openai", "anthropic", "openai-compatible"] as const;
export type JudgeProvider = (typeof JUDGE_PROVIDERS)[number];

export type JudgeSpec =
  /** A live model, called through the AI SDK. */
  | { kind: "model"; provider: JudgeProvider; model: string }
  /** Verdicts replayed from a `dramaturg.judge-fixtures/v1` file. */
  | { kind: "fixtures"; file: string };

/** Every form a judge spec can take, for messages and help. */
export const JUDGE_SPEC_FORMS = "openai:MODEL | anthropic:MODEL | openai-compatible:MODEL | fixtures:FILE";

const ACCEPTED_FORMS =
  "expected openai:MODEL, anthropic:MODEL, openai-compatible:MODEL with a base URL, or fixtures:FILE " +
  "(e.g. openai:gpt-5-mini, anthropic:claude-sonnet-4-5, openai-compatible:llama3.1 with --judge-base-url http://127.0.0.1:11434/v1, fixtures:judge-fixtures.json)";

export interface ParseJudgeSpecOptions {
  /** Folder a relative fixtures path is resolved against; without it the path is kept as written. */
  cwd?: string;
}

/** Parses a judge spec. A malformed one, or an unknown provider, is an {@link InputError} listing every form. */
export function parseJudgeSpec(text: string, { cwd }: ParseJudgeSpecOptions = {}): JudgeSpec {
  // A fixtures path may hold spaces; a model id never does.
  const fixtures = /^fixtures:(.+)$/i.exec(text.trim());
  if (fixtures) {
    const file = fixtures[1]!.trim();
    return { kind: "fixtures", file: cwd === undefined ? file : resolve(cwd, file) };
  }
  const match = /^([A-Za-z-]+):(\S+)$/.exec(text.trim());
  if (!match) throw new InputError(`invalid judge "${text}": ${ACCEPTED_FORMS}`);
  const provider = match[1]!.toLowerCase();
  const rest = match[2]!;
  if (!(JUDGE_PROVIDERS as readonly string[]).includes(provider))
    throw new InputError(
      `unknown judge provider "${match[1]}" in "${text}"${didYouMean(provider)}: ${ACCEPTED_FORMS}`,
    );
  return { kind: "model", provider: provider as JudgeProvider, model: rest };
}

/** ` (did you mean "fixtures"?)` for a provider a typo away from a known one, else "". */
function didYouMean(provider: string): string {
  const near = [...JUDGE_PROVIDERS, "fixtures"].find((known) => editDistance(provider, known) <= 2);
  return near ? ` (did you mean "${near}"?)` : "";
}

/** The text that parses back to this spec: `provider:model` or `fixtures:FILE`. */
export function formatJudgeSpec(spec: JudgeSpec): string {
  return spec.kind === "fixtures" ? `fixtures:${spec.file}` : `${spec.provider}:${spec.model}`;
}
