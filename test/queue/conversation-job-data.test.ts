// A queued conversation's data carries the simulated user's check as converse set it: off, the built-in set,
// or a file's propositions whole (a worker elsewhere cannot read the file), and comes back, once through the
// queue's JSON and the schema a worker validates with, as the same option; data from before it travelled
// means the built-in set.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/index.ts";
import { loadSimulatedUserSet } from "../../src/propositions/index.ts";
import {
  type ConversationJobData,
  ConversationJobDataSchema,
  simulatedUserOfJob,
  simulatedUserOfOption,
} from "../../src/queue/conversation-jobs.ts";
import { useTempDir } from "../temp-dir.ts";

const dir = useTempDir("dramaturg-conversation-job-data-");

/** Data an older dramaturg queued: no simulated_user. */
const OLD: ConversationJobData = {
  evaluation_id: "0b8a3a52-4d1e-4c61-9a52-6f1f8a0c2f11",
  name: "job.yml",
  trial: 1,
  seed: 1,
  passes: "both",
  user: { spec: "openai-compatible:user", base_url: "http://127.0.0.1:9/v1" },
  judge: { spec: "fixtures:verdicts.json" },
};

/** The option as a worker gets it back: into job data, through the queue's JSON and the worker's schema. */
function throughTheQueue(option: Parameters<typeof simulatedUserOfOption>[0]) {
  const data = JSON.parse(JSON.stringify({ ...OLD, simulated_user: simulatedUserOfOption(option) }));
  return simulatedUserOfJob(ConversationJobDataSchema.parse(data).simulated_user);
}

describe("the simulated user's check in a queued conversation's data", () => {
  it("off stays off, and the built-in set stays the built-in set (no propositions carried)", () => {
    expect(simulatedUserOfOption(false)).toEqual({ check: false });
    expect(throughTheQueue(false)).toBe(false);
    expect(simulatedUserOfOption({})).toEqual({ check: true });
    expect(throughTheQueue({})).toEqual({});
    expect(throughTheQueue(undefined)).toEqual({});
  });

  it("a file's set comes back as loaded: its propositions, threshold, source as given and hash", () => {
    const file = join(dir(), "user.yaml");
    writeFileSync(
      file,
      [
        "dimension: simulated_user",
        "threshold: 7",
        "propositions:",
        "  - id: says-it-is-a-bot",
        "    inverted: true",
        "    weight: 0.5",
        "    claim: '{{user_name}} says it is a bot.'",
        "  - id: keeps-quiet",
        "    when: facts_withheld",
        "    claim: 'It does not say {{signoff}} early.'",
      ].join("\n"),
    );
    const set = loadSimulatedUserSet(file);
    expect(throughTheQueue({ propositions: set })).toEqual({ propositions: set });
  });

  it("data queued before the check travelled is valid, and means the built-in set", () => {
    const parsed = ConversationJobDataSchema.parse(JSON.parse(JSON.stringify(OLD)));
    expect(parsed.simulated_user).toBeUndefined();
    expect(simulatedUserOfJob(parsed.simulated_user)).toEqual({});
  });

  it("propositions with the check off are refused, and a carried set is checked as a file is", () => {
    const propositions = {
      source: "mine.yaml",
      dimension: "simulated_user",
      threshold: 5,
      propositions: [{ id: "a", claim: "{{agent_name}} is fine" }],
    };
    expect(
      ConversationJobDataSchema.safeParse({ ...OLD, simulated_user: { check: false, propositions } }).success,
    ).toBe(false);
    const data = ConversationJobDataSchema.parse({ ...OLD, simulated_user: { check: true, propositions } });
    expect(() => simulatedUserOfJob(data.simulated_user)).toThrow(InputError);
    expect(() => simulatedUserOfJob(data.simulated_user)).toThrow(
      /^mine\.yaml: propositions\.0\.claim: unknown variable \{\{agent_name\}\}/,
    );
  });
});
