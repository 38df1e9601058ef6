// runs.list({ agentMatch }): the dashboard's agent filter — part of the id or of the display name, any case —
// the same on every backend, while `agent` stays an exact id.
import { randomUUID } from "node:crypto";
import { expect, test } from "vitest";
import type { Store } from "../../src/store/index.ts";
import { agentMatches } from "../../src/store/index.ts";
import { describeStore } from "./backends.ts";

/** Two agents of a name and id made unique for this test, with one completed run each. */
async function twoAgents(store: Store) {
  const tag = randomUUID().slice(0, 8);
  const agents = [
    { id: `dov-${tag}`, name: `Dov Showman ${tag}` },
    { id: `wendell-${tag}`, name: `Wendell Tideworth ${tag}` },
  ];
  await store.agents.upsert(agents.map((a) => ({ ...a, persona: `Persona of ${a.name}` })));
  for (const a of agents) {
    const run = await store.runs.create({ agent_id: a.id, dimensions: ["adherence"], sample_size: 1 });
    await store.runs.start(run.id);
    await store.runs.complete(run.id, { overall_score: 5, dimension_scores: {} });
  }
  return { tag, dov: agents[0]!.id, wendell: agents[1]!.id };
}

const agentsOf = async (store: Store, options: Parameters<Store["runs"]["list"]>[0]) =>
  [...new Set((await store.runs.list({ ...options, limit: 200 })).map((r) => r.agent_id))].sort();

describeStore("runs listed by agentMatch", ({ store }) => {
  test("part of the id matches, in any case", async () => {
    const { tag, dov } = await twoAgents(store());
    await expect(agentsOf(store(), { agentMatch: `DOV-${tag.toUpperCase()}` })).resolves.toEqual([dov]);
  });

  test("part of the display name matches, in any case", async () => {
    const { tag, wendell } = await twoAgents(store());
    await expect(agentsOf(store(), { agentMatch: `tideworth ${tag}` })).resolves.toEqual([wendell]);
  });

  test("a text matching both agents lists both; one matching neither lists none", async () => {
    const { tag, dov, wendell } = await twoAgents(store());
    await expect(agentsOf(store(), { agentMatch: tag })).resolves.toEqual([dov, wendell]);
    await expect(agentsOf(store(), { agentMatch: `nobody-${tag}` })).resolves.toEqual([]);
  });

  test("a LIKE wildcard in the text is an ordinary character", async () => {
    const { tag } = await twoAgents(store());
    await expect(agentsOf(store(), { agentMatch: `%${tag}` })).resolves.toEqual([]);
    await expect(agentsOf(store(), { agentMatch: `d_v-${tag}` })).resolves.toEqual([]);
  });

  test("agent stays an exact id", async () => {
    const { dov } = await twoAgents(store());
    await expect(agentsOf(store(), { agent: dov.toUpperCase() })).resolves.toEqual([]);
    await expect(agentsOf(store(), { agent: dov.slice(0, 5) })).resolves.toEqual([]);
    await expect(agentsOf(store(), { agent: dov })).resolves.toEqual([dov]);
  });
});

test("agentMatches is the same rule for a single agent", () => {
  const mallory = { id: "mallory", name: "Mallory <img src=x>" };
  expect(agentMatches(mallory, "ALL")).toBe(true);
  expect(agentMatches(mallory, "img SRC")).toBe(true);
  expect(agentMatches(mallory, "bob")).toBe(false);
});
