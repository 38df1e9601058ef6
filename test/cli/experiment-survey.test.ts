// An experiment whose scenario asks a survey and names real answers (issue 49): every agent answers on its own
// after the session, each arm's answers are validated against the real people's and stored under the
// experiment, `validate … experiment:ID` reads an arm's answers back, and a bad real-answers column stops the
// run before any model is called.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { cli, modelFlags, ROOT } from "./run-cli.ts";

const dir = useTempDir("dramaturg-experiment-survey-");
const REAL = `${ROOT}test/fixtures/validation/tinytroupe-gazpacho-real.csv`;
const QUESTION = "On a scale of 1 to 5, would you buy bottled gazpacho?";
let agents: FakeOpenAIServer;
let judge: FakeOpenAIServer;

beforeAll(async () => {
  // Every taster answers the survey with a 3 (a collapsed population); anything else gets a blend.
  agents = await startFakeOpenAIServer({
    respond: (request) => {
      const asked = request.messages.some(
        (m) => typeof m.content === "string" && m.content.includes(QUESTION),
      );
      const text = asked ? "Hmm. I would say 3, maybe." : "Smoked pear and black tea.";
      return { tool_calls: [{ name: "send_message", arguments: { channel: "tasting", text } }] };
    },
  });
  judge = await startFakeOpenAIServer();
});
afterAll(async () => {
  await agents.close();
  await judge.close();
});

function scenario(column = "Vote"): string {
  const source = readFileSync(`${ROOT}test/fixtures/experiments/scenarios/two-tasters.yaml`, "utf8").replace(
    "folder: ../populations/hand-written",
    `folder: ${ROOT}test/fixtures/experiments/populations/hand-written`,
  );
  const survey = `survey:
  - id: vote
    prompt: "${QUESTION} Answer with the number first."
    kind: ordinal
    scale: 1-5
    empirical: { file: ${REAL}, column: ${column} }
`;
  const file = join(dir(), `scenario-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, source.replace("metrics:", `${survey}metrics:`));
  return file;
}

describe("experiment run with a survey and real answers", () => {
  it("asks every agent, validates each arm against the real answers, and stores the validations under the experiment", {
    timeout: 90_000,
  }, async () => {
    const db = join(dir(), "store");
    const out = join(dir(), "result.json");
    const run = await cli([
      "experiment",
      "run",
      scenario(),
      ...modelFlags({ agents: agents.url, judge: judge.url, db }),
      "--out",
      out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const document = JSON.parse(readFileSync(out, "utf8"));
    // Two agents in each of two environments, read by the survey's rule.
    expect(document.arms.control.survey).toEqual({ vote: ["3", "3", "3", "3"] });
    expect(document.arms.treatment.survey).toEqual({ vote: ["3", "3", "3", "3"] });
    expect(document.environments[0].arms.control.survey.vote).toEqual({
      "ines-alvarez": "3",
      "rosa-costa": "3",
    });
    // Each arm printed and stored against the real answers: four votes all the same have no spread, but four
    // are too few for the tests to tell the distributions apart, and the verdict says so rather than "collapsed".
    expect(run.stdout).toContain("Control against real answers");
    expect(run.stdout).toContain("Treatment against real answers");
    expect(run.stdout.match(/sd 0\.00 vs 1\.36 .*do not differ at this sample size/g)).toHaveLength(2);
    expect(run.stderr).toMatch(/validation [0-9a-f]{8} \(Control against real answers\)/);
    const listed = await cli(["runs", "--kind", "validation", "--db", db, "--format", "json"]);
    expect(listed.code, listed.stderr).toBe(0);
    const experimentId = /experiment ([0-9a-f]{8})/.exec(run.stderr)![1]!;
    const rows = Object.values(JSON.parse(listed.stdout))[0] as { experiment: string | null }[];
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.experiment?.startsWith(experimentId))).toBe(true);

    // The stored answers read back as the simulated side of `validate`.
    const validate = await cli([
      "validate",
      REAL,
      `experiment:${experimentId}`,
      "--arm",
      "control",
      "--column",
      "Vote",
      "--simulated-column",
      "vote",
      "--kind",
      "ordinal",
      "--scale",
      "1-5",
      "--db",
      db,
      "--format",
      "json",
    ]);
    expect(validate.code, validate.stderr).toBe(0);
    const validation = JSON.parse(validate.stdout);
    expect(validation.experiment.startsWith(experimentId)).toBe(true);
    expect(validation.questions[0].simulated.n).toBe(4);
    expect(validation.questions[0].verdict).toBe("consistent");
    expect(validation.questions[0].real).toMatchObject({ n: 50, mean: 2.86 });
  });

  it("refuses a real-answers column that is not there before calling any model", async () => {
    const before = agents.stats.calls;
    const run = await cli([
      "experiment",
      "run",
      scenario("Votes"),
      ...modelFlags({ agents: agents.url, judge: judge.url, db: join(dir(), "bad-store") }),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no column "Votes"');
    expect(run.stderr).toContain('did you mean "Vote"');
    expect(agents.stats.calls).toBe(before);
  });
});
