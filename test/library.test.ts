// The library as a user's code calls it: evaluatePersonas on a file, an object or stored messages,
// judged by the fixture judge or a judge built in code; the result kept and readable again.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  evaluatePersonas,
  InputError,
  loadEvalResult,
  openStore,
  parseTranscript,
  resumePersonaEvaluation,
} from "../src/index.ts";
import { scriptedJudge } from "../src/testing/index.ts";

const root = fileURLToPath(new URL("../examples/ensemble/", import.meta.url));
const example = {
  transcript: `${root}transcript.json`,
  propositions: `${root}propositions`,
  judge: `fixtures:${root}judge-fixtures.json`,
};

describe("evaluatePersonas", () => {
  it("evaluates a transcript file with the fixture judge in one call", async () => {
    const result = await evaluatePersonas(example);
    expect(result.format).toBe("dramaturg.eval-result/v1");
    expect(result.totals.errored).toBe(0);
    const dov = result.runs.find((r) => r.agent_id === "dov")!;
    expect(dov.dimensions.fluency!.score).toBeCloseTo(2.68, 2);
    expect(result.propositions?.agents.dov?.fluency).toEqual(
      expect.arrayContaining([expect.stringContaining("fluency")]),
    );
  });

  it("takes a parsed transcript object and a judge built in code", async () => {
    const transcript = JSON.parse(readFileSync(example.transcript, "utf8"));
    const result = await evaluatePersonas({
      transcript,
      dimensions: ["adherence"],
      agents: ["dov"],
      judge: scriptedJudge(() => ({ score: 6, reasoning: "scripted" })),
    });
    expect(result.source).toBe("transcript");
    expect(result.runs.map((r) => r.agent_id)).toEqual(["dov"]);
    // Built-in adherence propositions (not hard): a raw 6 scores 6, or 9 − 6 = 3 where inverted.
    const propositions = result.runs[0]!.dimensions.adherence!.propositions;
    expect(propositions.length).toBeGreaterThan(1);
    for (const p of propositions) expect(p.score).toBe(p.inverted ? 3 : 6);
  });

  it("rejects a bad transcript before anything is written, naming the JSON path", async () => {
    const store = await openStore("memory://");
    try {
      const error = await evaluatePersonas({
        transcript: { format: "dramaturg.transcript/v1", agents: [], messages: [] },
        judge: scriptedJudge(() => ({ score: 9 })),
        store,
      }).catch((e) => e);
      expect(InputError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(/^transcript:agents/);
      expect(await store.evaluations.list()).toHaveLength(0);
    } finally {
      await store.close();
    }
  });

  it("keeps the result with the evaluation, readable again without the transcript", async () => {
    const store = await openStore("memory://");
    try {
      const result = await evaluatePersonas({ ...example, dimensions: ["fluency"], store });
      const again = await loadEvalResult({ store, id: result.evaluation_id.slice(0, 8) });
      expect(again).toEqual(result);
    } finally {
      await store.close();
    }
  });

  it("resumes a failed evaluation from the transcript and propositions it kept", async () => {
    const store = await openStore("memory://");
    try {
      let calls = 0;
      const flaky = scriptedJudge(() => ({ score: 7 }));
      const failing = {
        descriptor: flaky.descriptor,
        judge: async (...args: Parameters<typeof flaky.judge>) => {
          if (++calls > 3) throw new Error("the judge went away");
          return flaky.judge(...args);
        },
      };
      const transcript = parseTranscript(readFileSync(example.transcript, "utf8"), "t.json");
      const error = await evaluatePersonas({
        transcript,
        dimensions: ["adherence"],
        judge: failing,
        store,
        concurrency: 1,
      }).catch((e) => e);
      expect(error.message).toBe("the judge went away");
      const [stored] = await store.evaluations.list();
      expect(stored!.status).toBe("failed");
      const result = await resumePersonaEvaluation({ store, judge: flaky });
      expect(result.evaluation_id).toBe(stored!.id);
      expect(result.totals.resumed?.reused_verdicts).toBeGreaterThan(0);
      expect(result.totals.errored).toBe(0);
    } finally {
      await store.close();
    }
  });
});
