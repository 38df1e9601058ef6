import { describe, expect, it } from "vitest";
import type { ErrorReason } from "../../src/core/index.ts";
import type { DimensionResult, EvalResult } from "../../src/personas/index.ts";
import {
  EVAL_RESULT_FORMAT,
  everyVerdictErrored,
  renderMarkdown,
  renderTable,
} from "../../src/personas/index.ts";

const UNKNOWN_IDS: ErrorReason = {
  name: "JudgeError",
  reason: "the judge answered a claim id it was not given (…)",
  count: 38,
  example: `the judge answered a claim id it was not given ("id ge")`,
};
const TIMEOUT: ErrorReason = {
  name: "JudgeError",
  reason: "the judge did not answer within N ms",
  count: 2,
  example: "the judge did not answer within 60000 ms",
};

const dimension = (score: number | null, verdicts: number, errored: number): DimensionResult => ({
  score,
  verdicts,
  errored,
  trials: [{ trial: 1, score }],
  propositions_hash: "0123456789abcdef",
  propositions: [],
});

/** A hand-built result: one agent with `verdicts` judged and `errored` failed adherence verdicts. */
function result(verdicts: number, errored: number, error_reasons?: ErrorReason[]): EvalResult {
  const score = verdicts > 0 ? 7.5 : null;
  return {
    format: EVAL_RESULT_FORMAT,
    evaluation_id: "0123456789abcdef0123",
    status: "completed",
    source: "demo/transcript.json",
    judge: { provider: "openai", model: "fake-model", prompt_version: "p1", mode: "batch", trials: 1 },
    dimensions: ["adherence"],
    runs: [
      {
        run_id: "run-1",
        status: "completed",
        token_usage: { input_tokens: 0, output_tokens: 0 },
        agent_id: "marta",
        name: "Marta",
        sample_size: 4,
        overall_score: score,
        verdicts,
        errored,
        dimensions: { adherence: dimension(score, verdicts, errored) },
      },
    ],
    environments: [],
    totals: {
      verdicts,
      errored,
      ...(error_reasons ? { error_reasons } : {}),
      requests: 4,
      calls: 4,
      token_usage: { input_tokens: 100, output_tokens: 20 },
    },
    warnings: [],
  };
}

describe("error reasons in the result", () => {
  it("a result with scores and no errors has no error block", () => {
    const clean = result(40, 0);
    expect(everyVerdictErrored(clean)).toBe(false);
    expect(renderTable(clean)).not.toContain("errors:");
    expect(renderMarkdown(clean)).not.toContain("Why verdicts errored");
  });

  it("the table lists each reason with its count and an example under the totals", () => {
    const table = renderTable(result(10, 40, [UNKNOWN_IDS, TIMEOUT]));
    const lines = table.split("\n");
    const totals = lines.findIndex((l) => l.startsWith("10 verdicts · 40 errored"));
    expect(lines.slice(totals + 1, totals + 4)).toEqual([
      "warning: 40 verdicts errored and were left out of the scores",
      `errors: 38 × the judge answered a claim id it was not given (…)  e.g. the judge answered a claim id it was not given ("id ge")`,
      "        2 × the judge did not answer within N ms  e.g. the judge did not answer within 60000 ms",
    ]);
  });

  it("when every verdict errored the table says so first, with the reasons", () => {
    const failed = result(0, 38, [UNKNOWN_IDS]);
    expect(everyVerdictErrored(failed)).toBe(true);
    const lines = renderTable(failed).split("\n");
    expect(lines.slice(2, 4)).toEqual([
      "Every verdict errored (38); the judge gave no scores.",
      `errors: 38 × the judge answered a claim id it was not given (…)  e.g. the judge answered a claim id it was not given ("id ge")`,
    ]);
    expect(lines.filter((l) => l.startsWith("errors:"))).toHaveLength(1);
  });

  it("the Markdown lists the reasons as escaped bullets after the totals", () => {
    const md = renderMarkdown(result(10, 40, [UNKNOWN_IDS, TIMEOUT]));
    expect(md).toMatch(/10 verdicts, 40 errored\.\n\nWhy verdicts errored:\n\n- 38 × the judge answered/);
    expect(md).toContain(
      String.raw`given \(…\)  e.g. the judge answered a claim id it was not given \("id ge"\)`,
    );
    expect(md).toContain("- 2 × the judge did not answer within N ms");
  });

  it("when every verdict errored the Markdown says so in bold before anything else", () => {
    const md = renderMarkdown(result(0, 38, [UNKNOWN_IDS]));
    const lines = md.split("\n");
    expect(lines[4]).toBe("**Every verdict errored (38); the judge gave no scores.**");
    expect(lines[6]).toMatch(/^- 38 × the judge answered a claim id/);
    expect(md.match(/Every verdict errored/g)).toHaveLength(1);
  });
});

describe("the proposition sets applied", () => {
  it("are named per dimension in the table and the Markdown, built-in sets included", () => {
    const r = result(4, 0);
    r.dimensions = ["adherence", "convergence"];
    r.propositions = {
      agents: {
        marta: { adherence: ["builtin:adherence", "props/adherence/marta.yaml"] },
        olek: { adherence: ["builtin:adherence"] },
      },
      environment: { convergence: ["props/convergence/_default.yaml"] },
    };
    const table = renderTable(r);
    expect(table).toMatch(
      /Propositions applied:\n {2}adherence {4}builtin:adherence, props\/adherence\/marta\.yaml\n/,
    );
    expect(table).toMatch(/ {2}convergence {2}props\/convergence\/_default\.yaml$/);
    expect(renderMarkdown(r)).toContain("- adherence: `builtin:adherence`, `props/adherence/marta.yaml`");
  });

  it("are left out of results stored before they were recorded", () => {
    expect(renderTable(result(4, 0))).not.toContain("Propositions applied");
  });
});

describe("what the numbers mean and where they went", () => {
  it("the table and the Markdown carry the scale, its direction and the minimums in force", () => {
    const r = result(4, 0);
    const options = { minimum: { adherence: 7 } };
    expect(renderTable(r, options)).toContain(
      "Scores are 0–9, higher is better; minimum adherence 7 (thresholds.minimum).",
    );
    expect(renderMarkdown(r, options)).toContain("_Scores are 0–9, higher is better; minimum adherence 7");
    expect(renderTable(r)).toContain("no minimum set (thresholds.minimum in dramaturg.yaml)");
  });

  it("say where the evaluation is stored and how to print it again, or that memory keeps nothing", () => {
    const r = result(4, 0);
    expect(renderTable(r, { stored: { location: ".dramaturg", kept: true } })).toMatch(
      /Stored as evaluation 01234567 in \.dramaturg; `dramaturg show 01234567` prints it again\.$/,
    );
    expect(renderTable(r, { stored: { location: "memory://", kept: false } })).toMatch(
      /Not kept: memory:\/\//,
    );
    expect(renderTable(r)).not.toMatch(/Stored as|Not kept/);
  });
});
