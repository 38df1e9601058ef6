// The labelling queue from verdict rows alone: what a label can target, in the order a person labels it.
import { describe, expect, it } from "vitest";
import type { StoredPersonaInput } from "../../src/personas/index.ts";
import type { ScoreRow } from "../../src/store/index.ts";
import { labellingQueue } from "../../src/web/labelling-queue.ts";

let n = 0;
const row = (over: Partial<ScoreRow>): ScoreRow => ({
  id: `r${++n}`,
  evaluation_id: "e",
  evaluation_run_id: null,
  dimension: "adherence",
  proposition_id: "p",
  agent_id: "ana",
  message_id: null,
  channel: null,
  trial: 1,
  verdict_key: `k${n}`,
  status: "ok",
  score: 5,
  raw_score: 5,
  count: null,
  ideas: null,
  weight: 1,
  inverted: false,
  hard: false,
  reasoning: "",
  context_snippet: null,
  error: null,
  created_at: "2026-01-01T00:00:00.000Z",
  ...over,
});

// Message ids whose code-unit order ("a" < "b") is not the transcript's (b was said first).
const kept = {
  transcript: {
    agents: [
      { id: "bo", name: "Bo", persona: "x" },
      { id: "ana", name: "Ana", persona: "y" },
    ],
    messages: [
      { id: "b", sender: "ana", channel: "town", text: "first", at: "2026-01-01T00:00:00Z" },
      { id: "a", sender: "bo", channel: "town", text: "second", at: "2026-01-01T00:01:00Z" },
    ],
  },
} as unknown as StoredPersonaInput;

describe("labellingQueue", () => {
  it("orders messages as the transcript does, each with its items together, then agents, then channels", () => {
    const rows = [
      row({ dimension: "convergence", agent_id: null, channel: "town", proposition_id: "distinct" }),
      row({ dimension: "fluency", agent_id: "ana", proposition_id: "varied" }),
      row({ dimension: "fluency", agent_id: "bo", proposition_id: "varied" }),
      row({ dimension: "consistency", agent_id: "bo", message_id: "a", proposition_id: "same" }),
      row({ dimension: "adherence", agent_id: "bo", message_id: "a", proposition_id: "z-style" }),
      row({ dimension: "adherence", agent_id: "bo", message_id: "a", proposition_id: "a-style" }),
      row({ dimension: "adherence", agent_id: "ana", message_id: "b", proposition_id: "a-style" }),
      row({ dimension: "adherence", agent_id: "ana", message_id: "b", proposition_id: "a-style", trial: 2 }),
    ];
    const queue = labellingQueue(rows, kept);
    expect(
      queue.map((i) => `${i.dimension}/${i.proposition_id}/${i.message_id ?? i.agent_id ?? i.channel}`),
    ).toEqual([
      "adherence/a-style/b",
      "adherence/a-style/a",
      "adherence/z-style/a",
      "consistency/same/a",
      "fluency/varied/bo",
      "fluency/varied/ana",
      "convergence/distinct/town",
    ]);
    // Both trials of one target are one item.
    expect(queue[0]!.rows).toHaveLength(2);
  });

  it("leaves out ideas quantity and targets whose every verdict was given without the judge", () => {
    const queue = labellingQueue(
      [
        row({
          dimension: "ideas_quantity",
          agent_id: null,
          channel: "town",
          count: 3,
          raw_score: null,
          score: null,
        }),
        row({ message_id: "a", status: "trivial" }),
        row({ message_id: "b", status: "trivial" }),
        row({ message_id: "b", status: "errored", trial: 2, score: null, raw_score: null }),
      ],
      kept,
    );
    expect(queue.map((i) => i.message_id)).toEqual(["b"]);
  });

  it("gives every target its own key, the same on every call", () => {
    const rows = [row({ message_id: "a" }), row({ message_id: "b" }), row({ message_id: null })];
    const keys = labellingQueue(rows, kept).map((i) => i.key);
    expect(new Set(keys).size).toBe(3);
    expect(
      labellingQueue([...rows].reverse(), kept)
        .map((i) => i.key)
        .sort(),
    ).toEqual([...keys].sort());
  });
});
