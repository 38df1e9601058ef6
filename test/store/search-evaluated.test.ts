// search of what was evaluated: the messages of a persona evaluation's kept transcript and the judge's reasoning of
// its verdicts, with the same hits, order and snippets on every backend (memory, PGlite, PostgreSQL).
import { beforeAll, describe, expect, test } from "vitest";
import type { RunRow, ScoreInput, SearchResults, Store } from "../../src/store/index.ts";
import { parseSearchQuery, REASONING_SCAN, substringFilter } from "../../src/store/search.ts";
import { describeStore } from "./backends.ts";

const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 9, minute)).toISOString();

/** A transcript as a persona evaluation keeps it in its input (the fields search reads, and a persona). */
function input(
  messages: { id: string; sender: string; channel: string; text: string; recipient?: string }[],
) {
  return {
    transcript: {
      format: "dramaturg.transcript/v1",
      agents: [
        { id: "ines", name: "Ines", persona: "A lighthouse keeper who talks about quokkas." },
        { id: "tomas", name: "Tomas", persona: "A ferryman." },
      ],
      messages: messages.map((m, i) => ({ ...m, at: at(i) })),
    },
    propositions: { agent: {} },
  };
}

const OLDER = [
  { id: "t1", sender: "ines", channel: "harbour", text: "The beacon needs kerosene before the storm." },
  { id: "t2", sender: "visitor", channel: "harbour", text: "Is the KEROSENE shop open on Sundays?" },
  { id: "t3", sender: "tomas", channel: "harbour", text: "Kerosene, kerosene: that is all she says." },
  {
    id: "t4",
    sender: "tomas",
    channel: "dm",
    recipient: "ines",
    text: "Try <b>marzipan</b> <script>alert(1)</script> at the Café Élan",
  },
];
const NEWER = [{ id: "n1", sender: "ines", channel: "harbour", text: "More kerosene for the lamp." }];

/** The hits of a kind as short strings, for comparisons that show what differs. */
const transcriptIds = (r: SearchResults) => r.transcripts.hits.map((h) => `${h.id}`);
const reasoningKeys = (r: SearchResults) =>
  r.reasonings.hits.map((h) => `${h.proposition_id}/${h.message_id ?? "-"}/${h.trial}`);

describeStore("search of evaluated transcripts and reasoning", ({ store }) => {
  let older: string;
  let newer: string;
  let ines: RunRow;
  let tomas: RunRow;
  let inesTrial2: RunRow;
  let newerRun: RunRow;
  let longEvaluation: string;
  let longRun: RunRow;

  beforeAll(async () => {
    const s: Store = store();
    await s.agents.upsert([
      { id: "ines", name: "Ines", persona: "A lighthouse keeper." },
      { id: "tomas", name: "Tomas", persona: "A ferryman." },
    ]);
    // A long transcript: its input is stored compressed (over 64 KB), which SQL cannot read as text.
    const long = Array.from({ length: 400 }, (_, i) => ({
      id: `g${i + 1}`,
      sender: "tomas",
      channel: "quarry",
      text: `${"Gravel and more gravel by the quarry road. ".repeat(5)}${i === 317 ? "A zeppelin overhead." : ""}`,
    }));
    longEvaluation = (await s.evaluations.create({ source: "quarry.json", input: input(long) })).id;
    longRun = await s.runs.create({
      agent_id: "tomas",
      evaluation_id: longEvaluation,
      dimensions: ["adherence"],
      sample_size: 400,
    });
    older = (await s.evaluations.create({ source: "harbour.json", input: input(OLDER) })).id;
    const run = (agent_id: string, evaluation_id: string, trial = 1) =>
      s.runs.create({ agent_id, evaluation_id, dimensions: ["adherence"], sample_size: 2, trial });
    // Made out of order, so the link goes to the first trial by its number, not by creation.
    inesTrial2 = await run("ines", older, 2);
    tomas = await run("tomas", older);
    ines = await run("ines", older);
    // A later evaluation (its creation time after the first's).
    await new Promise((resolve) => setTimeout(resolve, 5));
    newer = (await s.evaluations.create({ source: "harbour-2.json", input: input(NEWER) })).id;
    newerRun = await run("ines", newer);
    // A session analysis's input is no transcript: never searched as one.
    await s.evaluations.create({ kind: "session", source: "s.json", input: input(OLDER) });
    const verdict = (
      evaluation_id: string,
      evaluation_run_id: string | null,
      proposition_id: string,
      message_id: string | null,
      reasoning: string,
      more: Partial<ScoreInput> = {},
    ): ScoreInput => ({
      evaluation_id,
      evaluation_run_id,
      dimension: "adherence",
      proposition_id,
      agent_id: "ines",
      ...(message_id === null ? {} : { message_id }),
      trial: 1,
      status: "ok",
      raw_score: 4,
      score: 4,
      reasoning,
      ...more,
    });
    const writer = s.scores.writer();
    await writer.write([
      verdict(older, ines.id, "keeper-voice", "t1", "Sounds like a keeper: plain words about the beacon."),
      verdict(
        older,
        ines.id,
        "no-jargon",
        "t1",
        "The word nautilus never appears; plain speech, nautilus-free.",
      ),
      verdict(older, ines.id, "keeper-voice", null, "Across her messages the Nautilus comes up once.", {
        trial: 1,
      }),
      verdict(
        older,
        inesTrial2.id,
        "keeper-voice",
        "t1",
        "Trial two: markup <img src=x onerror=alert(1)> stays text; wombat.",
        {
          trial: 2,
        },
      ),
      verdict(older, ines.id, "errored-one", "t1", "", {
        status: "errored",
        score: null,
        raw_score: null,
        error: "JudgeError: timed out; nautilus",
      }),
      // A channel's verdict has no run, so no page to land on.
      {
        ...verdict(older, null, "channel-tone", null, "The harbour channel: nautilus talk."),
        agent_id: undefined,
        channel: "harbour",
      },
      verdict(newer, newerRun.id, "keeper-voice", "n1", "Kerosene again; a nautilus in passing."),
    ]);
    await writer.close();
  });

  const search = (q: string, limit?: number) =>
    store().search.query({ q, ...(limit ? { limit } : {}), kinds: ["transcript", "reasoning"] });

  test("a word of an evaluated transcript finds its messages, whatever the case, most occurrences first", async () => {
    const results = await search("Kerosene");
    // t3 says it twice; then the newer evaluation's n1; then t1, t2 in transcript order.
    expect(transcriptIds(results)).toEqual(["t3", "n1", "t1", "t2"]);
    expect(results.transcripts.more).toBe(false);
    const t2 = results.transcripts.hits.find((h) => h.id === "t2")!;
    expect(t2.snippet).toEqual([
      { text: "Is the ", match: false },
      { text: "KEROSENE", match: true },
      { text: " shop open on Sundays?", match: false },
    ]);
  });

  test("a message links to its sender's run, the first trial; another's message to the evaluation's first run", async () => {
    const hits = (await search("kerosene")).transcripts.hits;
    const by = (id: string) => hits.find((h) => h.id === id)!;
    expect(by("t1")).toMatchObject({ evaluation_id: older, run_id: ines.id, judged: true, sender: "ines" });
    expect(by("t3")).toMatchObject({ run_id: tomas.id, judged: true, channel: "harbour" });
    // The visitor was not evaluated: the evaluation's first run by agent (ines before tomas), trial 1.
    expect(by("t2")).toMatchObject({ run_id: ines.id, judged: false, sender: "visitor" });
    expect(by("n1")).toMatchObject({ evaluation_id: newer, run_id: newerRun.id, judged: true });
  });

  test("a transcript stored compressed is searched as well", async () => {
    if (store().dialect !== "memory") {
      const [row] = (
        await store().db!.query<{ packed: boolean }>(
          "SELECT starts_with(input, 'gzip:') AS packed FROM evaluations WHERE id = $1",
          [longEvaluation],
        )
      ).rows;
      expect(row!.packed).toBe(true);
    }
    expect((await search("zeppelin")).transcripts.hits).toEqual([
      expect.objectContaining({
        evaluation_id: longEvaluation,
        run_id: longRun.id,
        id: "g318",
        judged: true,
      }),
    ]);
  });

  test("a word only in the persona or another kind's input finds no transcript message", async () => {
    expect((await search("quokkas")).transcripts.hits).toEqual([]);
  });

  test("markup and accented words in a message are plain text, found by their words", async () => {
    const [hit] = (await search("élan")).transcripts.hits;
    expect(hit).toMatchObject({ id: "t4", recipient: "ines" });
    expect(hit!.snippet.map((p) => p.text).join("")).toBe(OLDER[3]!.text);
    expect(transcriptIds(await search("marzipan"))).toEqual(["t4"]);
  });

  test("a word of the judge's reasoning finds its verdicts with their run, proposition and message", async () => {
    const results = await search("nautilus");
    // Twice in no-jargon's; then the newer evaluation's; then by agent, trial, dimension, proposition, message.
    expect(reasoningKeys(results)).toEqual(["no-jargon/t1/1", "keeper-voice/n1/1", "keeper-voice/-/1"]);
    const [first] = results.reasonings.hits;
    expect(first).toMatchObject({
      evaluation_id: older,
      run_id: ines.id,
      agent_id: "ines",
      dimension: "adherence",
      status: "ok",
      score: 4,
      reasoning: "The word nautilus never appears; plain speech, nautilus-free.",
    });
    expect(first!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(first!.snippet.filter((p) => p.match).map((p) => p.text)).toEqual(["nautilus", "nautilus"]);
  });

  test("errored verdicts (their error is no reasoning) and verdicts without a run are not found", async () => {
    const stored = await store().scores.forEvaluation(older);
    expect(stored.find((r) => r.proposition_id === "channel-tone")?.reasoning).toContain("nautilus");
    expect(stored.find((r) => r.proposition_id === "errored-one")?.error).toContain("nautilus");
    const keys = reasoningKeys(await search("nautilus"));
    expect(keys).not.toContain("errored-one/t1/1");
    expect(keys.some((k) => k.startsWith("channel-tone"))).toBe(false);
  });

  test("phrases, exclusions and alternatives hold in the reasoning as in messages", async () => {
    expect(reasoningKeys(await search('"plain speech"'))).toEqual(["no-jargon/t1/1"]);
    expect(reasoningKeys(await search('"speech plain"'))).toEqual([]);
    expect(reasoningKeys(await search("plain -nautilus"))).toEqual(["keeper-voice/t1/1"]);
    expect(reasoningKeys(await search("wombat or beacon"))).toEqual([
      "keeper-voice/t1/1",
      "keeper-voice/t1/2",
    ]);
  });

  test("the judge's markup is returned as plain text for the page to escape", async () => {
    const [hit] = (await search("wombat")).reasonings.hits;
    expect(hit).toMatchObject({ run_id: inesTrial2.id, trial: 2 });
    expect(hit!.snippet.map((p) => p.text).join("")).toContain("<img src=x onerror=alert(1)>");
  });

  test("the limit caps each kind and says there is more", async () => {
    const capped = await search("kerosene", 2);
    expect(transcriptIds(capped)).toEqual(["t3", "n1"]);
    expect(capped.transcripts.more).toBe(true);
    expect(capped.reasonings.hits).toHaveLength(1);
    expect(capped.reasonings.more).toBe(false);
  });

  test("kinds leaves them out unless asked", async () => {
    const results = await store().search.query({ q: "kerosene", kinds: ["message"] });
    expect(results.transcripts).toEqual({ hits: [], more: false });
    expect(results.reasonings).toEqual({ hits: [], more: false });
    const all = await store().search.query({ q: "kerosene" });
    expect(all.kinds).toContain("transcript");
    expect(all.transcripts.hits).toHaveLength(4);
  });
});

describe("the substring filter the SQL stores read before matching", () => {
  test("holds each ASCII word of an alternative, and lets an alternative without one through", () => {
    const { sql, params } = substringFilter("reasoning", parseSearchQuery('"Plain speech" -x or wombat'), 3);
    expect(sql).toBe(
      "(strpos(lower(reasoning), $3) > 0 AND strpos(lower(reasoning), $4) > 0) OR (strpos(lower(reasoning), $5) > 0)",
    );
    expect(params).toEqual(["plain", "speech", "wombat"]);
    expect(substringFilter("t", parseSearchQuery("élan or wombat"), 1)).toEqual({ sql: "true", params: [] });
  });
});

describeStore(
  "the reasoning a SQL search reads",
  ({ store, db }) => {
    test("the newest evaluations' verdicts, REASONING_SCAN of them, whatever order the table holds them in", async () => {
      const s = store();
      await s.agents.upsert({ id: "ada", name: "Ada", persona: "A lighthouse keeper." });
      const evaluation = async (source: string, created: string) => {
        const id = (await s.evaluations.create({ source })).id;
        await db().query("UPDATE evaluations SET created_at = $2 WHERE id = $1", [id, created]);
        const run = await s.runs.create({
          agent_id: "ada",
          evaluation_id: id,
          dimensions: ["adherence"],
          sample_size: 1,
        });
        return { id, run: run.id };
      };
      // The newest evaluation's verdicts fill the scan; the older one's is past it.
      const newest = await evaluation("newest.json", "2026-03-02T00:00:00Z");
      const oldest = await evaluation("oldest.json", "2026-03-01T00:00:00Z");
      // The older evaluation's verdict first in the table: a scan in table order would find it.
      await db().query(
        `INSERT INTO evaluation_scores (evaluation_id, evaluation_run_id, dimension, proposition_id, agent_id, message_id,
                                        trial, status, score, raw_score, reasoning, verdict_key)
         VALUES ($1, $2, 'adherence', 'p', 'ada', 'm1', 1, 'ok', 5, 5, 'Another quasar.', 'k1')`,
        [oldest.id, oldest.run],
      );
      await db().query(
        `INSERT INTO evaluation_scores (evaluation_id, evaluation_run_id, dimension, proposition_id, agent_id, message_id,
                                        trial, status, score, raw_score, reasoning, verdict_key)
         SELECT $1, $2, 'adherence', 'p', 'ada', 'm' || k, 1, 'ok', 5, 5,
                CASE WHEN k = $3 THEN 'A quasar at last.' ELSE 'Plain words.' END, 'k' || k
           FROM generate_series(1, $3) k`,
        [newest.id, newest.run, REASONING_SCAN],
      );
      const hits = (await s.search.query({ q: "quasar", kinds: ["reasoning"] })).reasonings.hits;
      expect(hits.map((h) => [h.evaluation_id, h.message_id])).toEqual([[newest.id, `m${REASONING_SCAN}`]]);
    });
  },
  { sqlOnly: "the scan's bound is the SQL stores'; memory:// reads every verdict" },
);
