// agents: upsert by id with a persona hash that changes exactly when the persona does.
import { expect, test } from "vitest";
import { personaHash } from "../../src/store/index.ts";
import { describeStore } from "./backends.ts";

describeStore("agents", ({ store }) => {
  test("an upserted agent is stored with its persona and its persona hash", async () => {
    const [row] = await store().agents.upsert({
      id: "a-marta",
      name: "Marta",
      persona: "A chef who loves garlic.",
    });
    expect(row).toMatchObject({ id: "a-marta", name: "Marta", persona: "A chef who loves garlic." });
    expect(row?.persona_hash).toBe(personaHash("A chef who loves garlic."));
    expect(await store().agents.get("a-marta")).toEqual(row);
  });

  test("a structured persona comes back as the same object", async () => {
    const persona = { traits: ["blunt", "warm"], style: { register: "informal" }, age: 52 };
    await store().agents.upsert({ id: "a-otto", name: "Otto", persona });
    expect((await store().agents.get("a-otto"))?.persona).toEqual(persona);
  });

  test("upserting an agent again updates it in place", async () => {
    await store().agents.upsert({ id: "a-lena", name: "Lena", persona: "A pilot." });
    await store().agents.upsert({ id: "a-lena", name: "Lena K.", persona: "A retired pilot." });
    const all = (await store().agents.list()).filter((a) => a.id === "a-lena");
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({
      name: "Lena K.",
      persona: "A retired pilot.",
      persona_hash: personaHash("A retired pilot."),
    });
  });

  test("the persona hash ignores key order but not content", async () => {
    expect(personaHash({ a: 1, b: 2 })).toBe(personaHash({ b: 2, a: 1 }));
    expect(personaHash({ a: 1, b: 2 })).not.toBe(personaHash({ a: 1, b: 3 }));
  });

  test("updated_at stays put when an upsert changes nothing", async () => {
    const [before] = await store().agents.upsert({ id: "a-ida", name: "Ida", persona: "A nurse." });
    const [after] = await store().agents.upsert({ id: "a-ida", name: "Ida", persona: "A nurse." });
    expect(after?.updated_at).toBe(before?.updated_at);
  });

  test("many agents are upserted in one call, the last spelling of a repeated id winning", async () => {
    const rows = await store().agents.upsert([
      { id: "a-x", name: "X", persona: "first" },
      { id: "a-y", name: "Y", persona: "why" },
      { id: "a-x", name: "X", persona: "second" },
    ]);
    expect(rows).toHaveLength(2);
    expect((await store().agents.get("a-x"))?.persona).toBe("second");
  });

  test("an unknown agent is undefined", async () => {
    expect(await store().agents.get("nobody")).toBeUndefined();
  });

  test("agents are listed by id", async () => {
    await store().agents.upsert([
      { id: "l-c", name: "C", persona: "c" },
      { id: "l-a", name: "A", persona: "a" },
      { id: "l-b", name: "B", persona: "b" },
    ]);
    const ids = (await store().agents.list()).map((a) => a.id).filter((id) => id.startsWith("l-"));
    expect(ids).toEqual(["l-a", "l-b", "l-c"]);
  });

  test("a change of name moves updated_at and keeps created_at", async () => {
    const [before] = await store().agents.upsert({ id: "a-kai", name: "Kai", persona: "A diver." });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const [after] = await store().agents.upsert({ id: "a-kai", name: "Kai M.", persona: "A diver." });
    expect(after?.created_at).toBe(before?.created_at);
    expect(Date.parse(after!.updated_at)).toBeGreaterThan(Date.parse(before!.updated_at));
    expect(after?.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  test("a structured persona comes back with jsonb's key order: shorter keys first, then bytewise", async () => {
    await store().agents.upsert({
      id: "a-ord",
      name: "Ord",
      persona: { zz: 1, b: 2, aaa: 3, a: { y: 1, x: 2 } },
    });
    const persona = (await store().agents.get("a-ord"))?.persona as Record<string, unknown>;
    expect(Object.keys(persona)).toEqual(["a", "b", "zz", "aaa"]);
    expect(Object.keys(persona.a as object)).toEqual(["x", "y"]);
  });

  test("a persona read back is a copy: changing it changes nothing stored", async () => {
    const persona = { traits: ["calm"] };
    const [row] = await store().agents.upsert({ id: "a-copy", name: "Copy", persona });
    persona.traits.push("given after");
    (row!.persona as { traits: string[] }).traits.push("returned");
    const read = await store().agents.get("a-copy");
    (read!.persona as { traits: string[] }).traits.push("read");
    expect((await store().agents.get("a-copy"))?.persona).toEqual({ traits: ["calm"] });
  });
});
