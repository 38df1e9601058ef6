// `dramaturg/vitest`: persona checks as Vitest matchers, for a user's own test suite.
//   import "dramaturg/vitest";
//   await expect("chat.json").toStayInCharacter({ agent: "dov", judge: "openai:gpt-4o-mini", min: 7 });
// A failure names the dimensions and propositions that fell below the minimum, with the judge's reasoning.
import { expect } from "vitest";
import { AGENT_DIMENSIONS, type PersonaDimension } from "../core/index.ts";
import {
  type DimensionResult,
  EVAL_RESULT_FORMAT,
  type EvalResult,
  type EvaluatePersonasOptions,
  evaluatePersonas,
} from "../personas/index.ts";

/** What the matchers take besides the transcript: the agent, the judge, the minimum, and any evaluation option. */
export interface PersonaMatcherOptions extends Omit<EvaluatePersonasOptions, "transcript" | "agents"> {
  /** The agent whose messages are judged. */
  agent: string;
  /** Lowest passing score, 0–9. Default 7. */
  min?: number;
}

export interface StayInCharacterOptions extends PersonaMatcherOptions {
  /** Dimensions that must each reach `min`. Default adherence and consistency. */
  dimensions?: PersonaDimension[];
}

const isAgentDimension = (d: PersonaDimension) => (AGENT_DIMENSIONS as readonly string[]).includes(d);

function isEvalResult(value: unknown): value is EvalResult {
  return typeof value === "object" && value !== null && (value as EvalResult).format === EVAL_RESULT_FORMAT;
}

/** The received value evaluated (or taken as is when it is already a result) for one agent. */
async function resultFor(received: unknown, options: PersonaMatcherOptions, dimensions: PersonaDimension[]) {
  if (isEvalResult(received)) return received;
  const { agent, min: _min, ...rest } = options;
  return evaluatePersonas({
    ...rest,
    transcript: received as EvaluatePersonasOptions["transcript"],
    agents: [agent],
    dimensions,
  });
}

function fmt(score: number | null | undefined): string {
  return score === null || score === undefined ? "no score" : score.toFixed(2);
}

/** The lines explaining one dimension that fell: its score and each proposition below the minimum. */
function explain(
  dimension: string,
  result: DimensionResult | undefined,
  min: number,
  name: string,
): string[] {
  if (!result) return [`  ${dimension}: not evaluated (no propositions or no messages)`];
  const lines = [
    `  ${dimension} ${fmt(result.score)} < ${min}${result.errored ? ` (${result.errored} verdicts errored)` : ""}`,
  ];
  const fell = result.propositions
    .filter((p) => p.score !== null && p.score < min)
    .sort((a, b) => (a.score ?? 0) - (b.score ?? 0));
  for (const p of fell) {
    const claim = p.claim.replaceAll("{{agent_name}}", name);
    lines.push(`    ${p.id} ${fmt(p.score)}${p.inverted ? " (inverted)" : ""}: ${claim}`);
    // The judge's distinct reasons, a few: one per judged message would drown the message.
    for (const reason of [...new Set(p.reasoning)].slice(0, 2)) lines.push(`      judge: ${reason}`);
    if (p.recommendations_for_improvement) lines.push(`      fix: ${p.recommendations_for_improvement}`);
  }
  return lines;
}

async function check(
  this: { isNot: boolean },
  received: unknown,
  options: PersonaMatcherOptions,
  dimensions: PersonaDimension[],
  what: string,
) {
  const min = options.min ?? 7;
  const result = await resultFor(received, options, dimensions);
  const run = result.runs.find((r) => r.agent_id === options.agent);
  if (!run)
    return {
      pass: false,
      message: () => `expected agent "${options.agent}" to ${what}, but the evaluation has no run for it`,
    };
  const failed = dimensions.filter((d) => {
    const score = run.dimensions[d as "adherence"]?.score;
    return score === null || score === undefined || score < min;
  });
  const pass = failed.length === 0;
  const scores = dimensions.map((d) => `${d} ${fmt(run.dimensions[d as "adherence"]?.score)}`).join(", ");
  return {
    pass,
    message: () =>
      pass
        ? `expected ${run.name} (${options.agent}) not to ${what} (min ${min}), but: ${scores}`
        : [
            `expected ${run.name} (${options.agent}) to ${what} (min ${min}), but:`,
            ...failed.flatMap((d) => explain(d, run.dimensions[d as "adherence"], min, run.name)),
          ].join("\n"),
  };
}

expect.extend({
  async toStayInCharacter(received: unknown, options: StayInCharacterOptions) {
    const dimensions = options.dimensions ?? ["adherence", "consistency"];
    for (const d of dimensions)
      if (!isAgentDimension(d))
        throw new TypeError(`toStayInCharacter judges agent dimensions; "${d}" is not one`);
    return check.call(this, received, options, dimensions, "stay in character");
  },
  async toScoreAtLeast(received: unknown, dimension: PersonaDimension, options: PersonaMatcherOptions) {
    if (!isAgentDimension(dimension))
      throw new TypeError(`toScoreAtLeast judges an agent dimension; "${dimension}" is not one`);
    return check.call(
      this,
      received,
      options,
      [dimension],
      `score at least ${options.min ?? 7} on ${dimension}`,
    );
  },
});

declare module "vitest" {
  interface Matchers<R extends void | Promise<void> = void | Promise<void>, T = unknown> {
    /**
     * Evaluates the received transcript (a path, a parsed object, or an `EvalResult`) for `agent` and
     * passes when each of `dimensions` (default adherence and consistency) scores at least `min` (7).
     */
    toStayInCharacter(options: StayInCharacterOptions): Promise<void>;
    /** The per-dimension form: `await expect(t).toScoreAtLeast("fluency", { agent, judge, min: 6 })`. */
    toScoreAtLeast(dimension: PersonaDimension, options: PersonaMatcherOptions): Promise<void>;
  }
}
