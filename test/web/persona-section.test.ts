// The persona beside its scores (issue 48, item 1): the run page shows the persona its run was scored against
// (from the evaluation's kept transcript, else the agent's stored persona when the hash is the run's), the agent
// page its stored persona, both escaped and folded when long; the comparison diffs a persona that changed.
// The judge's verdicts are the example's hand-written fixtures (and the injection demo's, hand-written too).
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluatePersonas } from "../../src/personas/index.ts";
import { createServerApp } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { foldedText, PERSONA_LINES, personaAsText } from "../../src/web/persona-section.ts";
import { useTempDir } from "../temp-dir.ts";

const dir = useTempDir("dramaturg-persona-");
const TRANSCRIPT = JSON.parse(readFileSync("examples/ensemble/transcript.json", "utf8"));
const DOV = TRANSCRIPT.agents.find((a: { id: string }) => a.id === "dov");
let store: Store;
let app: ReturnType<typeof createServerApp>;
const ids = { before: "", after: "", mallory: "", reworded: "" };

beforeAll(async () => {
  store = await openStore("memory://");
  const evaluate = async (
    transcript: string,
    agents: string[],
    judge: string,
    propositions = "examples/ensemble/propositions",
  ) =>
    (
      await evaluatePersonas({
        transcript,
        propositions,
        dimensions: ["adherence"],
        agents,
        judge: `fixtures:${judge}`,
        store,
      })
    ).runs[0]!.run_id;
  ids.before = await evaluate(
    "examples/ensemble/transcript.json",
    ["dov"],
    "examples/ensemble/judge-fixtures.json",
  );
  // Dov's persona rewritten: one trait replaced, the style of speech shortened.
  const changed = join(dir(), "changed.transcript.json");
  writeFileSync(
    changed,
    JSON.stringify({
      ...TRANSCRIPT,
      agents: TRANSCRIPT.agents.map((a: { id: string }) =>
        a.id === "dov"
          ? {
              ...DOV,
              persona: {
                ...DOV.persona,
                traits: ["exuberant", "warm", "careful", "loves an audience", "generous"],
              },
            }
          : a,
      ),
    }),
  );
  ids.after = await evaluate(changed, ["dov"], "examples/ensemble/judge-fixtures.json");
  ids.mallory = await evaluate(
    "test/fixtures/web/injection.transcript.json",
    ["mallory"],
    "test/fixtures/web/injection.judge-fixtures.json",
  );
  // One of Dov's claims reworded ("radio host" → "breakfast host"): the propositions' hash changes too.
  const reworded = join(dir(), "propositions");
  cpSync("examples/ensemble/propositions", reworded, { recursive: true });
  const dovYaml = join(reworded, "adherence", "dov.yaml");
  writeFileSync(dovYaml, readFileSync(dovYaml, "utf8").replace("warm radio host", "warm breakfast host"));
  ids.reworded = await evaluate(changed, ["dov"], "examples/ensemble/judge-fixtures.json", reworded);
  app = createServerApp({ store });
}, 60_000);
afterAll(async () => {
  await store.close();
});

const page = async (path: string) => {
  const response = await app.request(path);
  return { status: response.status, text: await response.text() };
};

/** The page's persona section, markup and all. */
const section = (text: string) =>
  text.match(/<section class="persona" id="persona">[\s\S]*?<\/section>/)?.[0] ?? "";

describe("the persona beside its scores", () => {
  it("the run page shows the persona its run was scored against, first lines shown and the rest folded", async () => {
    const { text } = await page(`/runs/${ids.before}`);
    const persona = section(text);
    expect(persona).toContain("<h2>Persona scored against</h2>");
    expect(persona).toContain("Breakfast-show host and fund-drive lead");
    expect(persona).toContain('<details class="persona-more"><summary>The rest');
    const shown = persona.match(/<div class="persona-text">([\s\S]*?)<\/div>/)![1]!;
    expect(shown.split("\n")).toHaveLength(PERSONA_LINES);
    // The run kept its transcript: this is the text it was scored against, not the agent's latest.
    expect(persona).toContain("&quot;impulsive&quot;");
    expect(persona).not.toContain("the agent&#39;s stored persona");
  });

  it("a run after the persona changed shows its own persona, and the agent page warns when the latest run's differs", async () => {
    const after = section((await page(`/runs/${ids.after}`)).text);
    expect(after).toContain("&quot;careful&quot;");
    expect(after).not.toContain("&quot;impulsive&quot;");
    const agent = section((await page("/agents/dov")).text);
    expect(agent).toContain("<h2>Persona</h2>");
    expect(agent).toContain("&quot;careful&quot;");
    expect(agent).not.toContain("scored against another persona");
  });

  it("escapes a persona's markup on the run and agent pages", async () => {
    for (const path of [`/runs/${ids.mallory}`, "/agents/mallory"]) {
      const persona = section((await page(path)).text);
      expect(persona).toContain("&lt;script&gt;alert(&#39;persona&#39;)&lt;/script&gt;");
      expect(persona).not.toContain("<script>");
    }
  });

  it("falls back to the agent's stored persona only when its hash is the run's, and else says the text is not kept", async () => {
    const same = await store.runs.create({ agent_id: "dov", dimensions: ["adherence"], sample_size: 0 });
    const other = await store.runs.create({
      agent_id: "dov",
      dimensions: ["adherence"],
      sample_size: 0,
      persona_hash: "not-the-stored-one",
    });
    const fromAgent = section((await page(`/runs/${same.id}`)).text);
    expect(fromAgent).toContain("&quot;careful&quot;");
    expect(fromAgent).toContain("the agent&#39;s stored persona (this run&#39;s input was not kept)");
    const missing = section((await page(`/runs/${other.id}`)).text);
    expect(missing).toContain("The text of this persona is not kept in this store");
    expect(missing).not.toContain("careful");
  });

  it("the comparison diffs a persona that changed between A and B, word by word", async () => {
    const { text } = await page(`/compare?a=${ids.before}&b=${ids.after}`);
    const persona = section(text);
    expect(text).toContain("the persona differs");
    expect(persona).toContain("The persona changed from A to B: 1 word removed");
    expect(persona).toMatch(/<del>&quot;impulsive&quot;,\s*<\/del><ins>&quot;careful&quot;,\s*<\/ins>/);
    const same = section((await page(`/compare?a=${ids.before}&b=${ids.before}`)).text);
    expect(same).toContain("The same in both runs");
    expect(same).not.toContain("<del>");
  });
});

describe("the propositions beside their scores", () => {
  it("the comparison shows both propositions hashes and diffs a claim reworded between A and B", async () => {
    const { text } = await page(`/compare?a=${ids.after}&b=${ids.reworded}`);
    expect(text).toContain("the propositions differ");
    const [a, b] = await Promise.all([store.runs.get(ids.after), store.runs.get(ids.reworded)]);
    expect(text).toContain(
      `Propositions hash <code>${a!.propositions_hash}</code> in A, <code>${b!.propositions_hash}</code> in B.`,
    );
    expect(text).toMatch(
      /<q class="claim diff"[^>]*>Dov Marchetti sounds like an exuberant, warm <del>radio <\/del><ins>breakfast <\/ins>host/,
    );
    // An unchanged claim is a plain quote.
    const same = await page(`/compare?a=${ids.before}&b=${ids.after}`);
    expect(same.text).toContain("(the same set)");
    expect(same.text).not.toContain('class="claim diff"');
  });

  it("the agent page links to the run picker narrowed to the agent", async () => {
    const { text } = await page("/agents/dov");
    expect(text).toContain('<a href="/compare?agent=dov">Compare two runs of');
  });
});

describe("folding a long text", () => {
  it("shows a short text whole, without details", () => {
    expect(String(foldedText("A calm voice.\nShort lines."))).toBe(
      '<div class="persona-text">A calm voice.\nShort lines.</div>',
    );
  });

  it("shows the first lines of a long text and the rest, every line of it, in details", () => {
    const text = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n");
    const markup = String(foldedText(text));
    expect(markup).toContain(
      `<div class="persona-text">${text.split("\n").slice(0, PERSONA_LINES).join("\n")}</div>`,
    );
    expect(markup).toContain("<summary>The rest (4 more lines, ");
    expect(markup).toContain("line 7\nline 8\nline 9\nline 10</div></details>");
  });

  it("folds one very long line at a space", () => {
    const markup = String(foldedText("word ".repeat(400).trim()));
    const shown = markup.match(/^<div class="persona-text">([^<]*)<\/div>/)![1]!;
    expect(shown.length).toBeLessThanOrEqual(600);
    expect(shown.endsWith("word")).toBe(true);
    expect(markup).toContain("<summary>The rest (1 more line, ");
  });

  it("prints a structured persona as indented JSON", () => {
    expect(personaAsText({ traits: ["dry"] })).toBe('{\n  "traits": [\n    "dry"\n  ]\n}');
    expect(personaAsText("plain text")).toBe("plain text");
  });
});

describe("an agent whose latest run was scored against another persona", () => {
  it("the agent page says so and links that run (last: it adds Dov's newest run)", async () => {
    const run = await store.runs.create({
      agent_id: "dov",
      dimensions: ["adherence"],
      sample_size: 0,
      persona_hash: "an-older-persona",
    });
    await store.runs.start(run.id);
    await store.runs.complete(run.id, { overall_score: 5, dimension_scores: {} });
    const persona = section((await page("/agents/dov")).text);
    expect(persona).toContain(
      `its latest run (<a href="/runs/${run.id}">${run.id.slice(0, 8)}</a>) was scored against another persona (hash <code>an-older-persona</code>)`,
    );
  });
});
