// `dramaturg drift` as a user runs it: the agent under test behind the fake OpenAI-compatible server,
// following its instructions for six exchanges and no longer after; no network, no model.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinProbes, DriftResultSchema, fillName } from "../../src/redteam/index.ts";
import { createServerApp } from "../../src/server/index.ts";
import { openStore } from "../../src/store/index.ts";
import { type FakeOpenAIServer, messageText, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { cli } from "../cli/run-cli.ts";
import { useTempDir } from "../temp-dir.ts";

const dir = useTempDir("dramaturg-drift-");
const PROBES = builtinProbes();
let server: FakeOpenAIServer;
let persona: string;
let probes: string;

beforeAll(async () => {
  server = await startFakeOpenAIServer({
    respond: (request) => {
      const messages = request.messages.map(messageText);
      const name = /^You are ([^.,]+)[.,]/.exec(messages[0] ?? "")?.[1] ?? "?";
      const probe = PROBES.find((p) => fillName(p.text, name) === messages.at(-1));
      const exchanges = request.messages.filter((m) => m.role === "assistant").length;
      if (!probe) return `line ${exchanges + 1}`;
      return fillName((exchanges < 6 ? probe.examples!.pass : probe.examples!.fail)[0]!, name);
    },
  });
  persona = join(dir(), "marta.yml");
  writeFileSync(persona, "id: marta\nname: Marta\npersona: A ferry captain, terse and exact.\n");
  probes = join(dir(), "probes.yml");
  const chosen = PROBES.filter((p) =>
    ["memory-locker-code", "language-french", "persona-name"].includes(p.id),
  );
  writeFileSync(probes, JSON.stringify({ format: "dramaturg.drift-probes/v1", probes: chosen }, null, 2));
});
afterAll(async () => {
  await server.close();
});

const drift = (...args: string[]) =>
  cli([
    "drift",
    "--persona",
    persona,
    "--target-url",
    server.url,
    "--turns",
    "8",
    "--db",
    "memory://",
    ...args,
  ]);

describe("dramaturg drift", () => {
  it("prints stability per turn and the first turn under the bar: 6 for a target that degrades after turn 6", async () => {
    const r = await drift("--seeds", "1");
    expect(r.stderr).toMatch(/^stored in memory:\/\/\S* \(dramaturg show [0-9a-f]{8}\)\n$/);
    expect(r.code).toBe(0);
    const rows = r.stdout.split("\n");
    expect(rows[0]).toMatch(/^turn\s+Marta$/);
    expect(rows.slice(1, 5).map((row) => row.trim().split(/\s+/).slice(0, 2))).toEqual([
      ["2", "1.00"],
      ["4", "1.00"],
      ["6", "0.00"],
      ["8", "0.00"],
    ]);
    expect(r.stdout).toContain("Marta: first below 0.8 at turn 6 (");
    expect(r.stdout).toContain("23 probes (built-in) after turns 2, 4, 6, 8 of 8, seeds 1");
  });

  it("exits 1 with --min-stability when a probed turn is under it, 0 when none is", async () => {
    const failing = await drift("--probes", probes, "--min-stability", "0.5");
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain("stability under 0.5: Marta at turn 6 (0.00), Marta at turn 8 (0.00)");
    const passing = await drift("--probes", probes, "--turns", "4", "--min-stability", "0.5");
    expect(passing.code).toBe(0);
  });

  it("--format json is dramaturg.drift/v1, the same bytes at any concurrency", async () => {
    const one = await drift("--probes", probes, "--seeds", "2", "--format", "json", "--concurrency", "1");
    const many = await drift("--probes", probes, "--seeds", "2", "--format", "json", "--concurrency", "6");
    expect(one.code).toBe(0);
    const result = DriftResultSchema.parse(JSON.parse(one.stdout));
    expect(result.format).toBe("dramaturg.drift/v1");
    expect(result.personas[0]!.curve.map((p) => [p.turn, p.passed, p.checked])).toEqual([
      [2, 6, 6],
      [4, 6, 6],
      [6, 0, 6],
      [8, 0, 6],
    ]);
    expect(result.personas[0]!.first_below_bar).toBe(6);
    expect(many.stdout).toBe(one.stdout);
  });

  it("--partner user: a simulated user on its own model speaks, and never sees a probe or its answer", async () => {
    const from = server.stats.requests.length;
    const r = await drift(
      ...["--probes", probes, "--seeds", "1", "--format", "json", "--partner", "user"],
      ...["--user-model", "openai-compatible:user-model", "--user-base-url", server.url],
    );
    expect(r.code, r.stderr).toBe(0);
    const result = DriftResultSchema.parse(JSON.parse(r.stdout));
    expect(result.partner).toBe("simulated-user");
    expect(result.personas[0]!.first_below_bar).toBe(6);
    const user = server.stats.requests.slice(from).filter((q) => q.model === "user-model");
    // One line a turn after the first, in each of the three probes' conversations.
    expect(user).toHaveLength(3 * 7);
    const seen = user.map((q) => q.messages.map(messageText).join("\n"));
    expect(seen[0]).toContain("<conversation>");
    for (const text of seen) for (const p of PROBES) expect(text).not.toContain(fillName(p.text, "Marta"));
  });

  it("--format markdown gives a table a pull request can show", async () => {
    const r = await drift("--probes", probes, "--seeds", "1", "--format", "markdown");
    expect(r.stdout).toContain("| turn | Marta |\n|---:|---|\n| 2 | 1.00 [");
    expect(r.stdout).toContain("- Marta: first below 0.8 at turn 6");
  });

  it("a bad probe file exits 2 naming the file, the line and what was expected; nothing runs", async () => {
    const bad = join(dir(), "bad.yml");
    writeFileSync(
      bad,
      "format: dramaturg.drift-probes/v1\nprobes:\n  - id: one\n    kind: pattern\n    text: Hi?\n    checker: { type: regex, pattern: '(' }\n",
    );
    const calls = server.stats.calls;
    const r = await drift("--probes", bad);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^dramaturg: .*bad\.yml:6:\d+: probes\[0\]\.checker\.pattern: not a valid regular expression/,
    );
    expect(server.stats.calls).toBe(calls);
    writeFileSync(
      bad,
      "format: dramaturg.drift-probes/v1\nprobes:\n  - id: one\n    kind: vibes\n    text: Hi?\n    checker: { type: regex, pattern: x }\n",
    );
    const kind = await drift("--probes", bad);
    expect(kind.code).toBe(2);
    expect(kind.stderr).toMatch(
      /bad\.yml:4:11: kind: expected one of pattern, multiple_choice, persona, memorisation, language, got the string "vibes"\n$/,
    );
  });

  it("bad usage exits 2: no persona, two targets, a bar out of range", async () => {
    expect((await cli(["drift", "--target-url", server.url])).stderr).toContain(
      "give --persona FILE or --agent ID",
    );
    const both = await drift("--model", "openai:gpt-4o-mini");
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--target-url URL (an agent) or --model SPEC");
    const bar = await drift("--bar", "1.5");
    expect([bar.code, bar.stderr]).toEqual([
      2,
      'dramaturg: --bar: expected a share from 0 to 1, got "1.5"\n',
    ]);
  });

  it("a target that cannot be reached exits 3", async () => {
    const down = await startFakeOpenAIServer();
    const url = down.url;
    await down.close();
    const r = await cli([
      "drift",
      "--persona",
      persona,
      "--target-url",
      url,
      "--probes",
      probes,
      "--turns",
      "2",
      "--db",
      "memory://",
    ]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/the agent at .* failed 4 attempt\(s\)/);
  }, 20_000);

  it("keeps the run in the store: show reprints it, runs --kind drift lists it, --agent probes a stored persona", async () => {
    const db = join(dir(), "store");
    const r = await drift("--probes", probes, "--seeds", "1", "--db", db);
    expect(r.code).toBe(0);
    const id = /dramaturg show ([0-9a-f]{8})/.exec(r.stderr)![1]!;
    const shown = await cli(["show", id, "--db", db]);
    expect([shown.code, shown.stdout]).toEqual([0, r.stdout]);
    const json = JSON.parse((await cli(["show", id, "--db", db, "--format", "json"])).stdout);
    expect(json).toMatchObject({
      format: "dramaturg.drift/v1",
      personas: [{ id: "marta", first_below_bar: 6 }],
    });
    const listed = await cli(["runs", "--kind", "drift", "--db", db]);
    expect(listed.stdout).toMatch(new RegExp(`^${id}  .*completed\\s+8\\s+1\\s+3  marta@6$`, "m"));
    // The dashboard lists it and shows its report.
    const store = await openStore(db);
    try {
      const app = createServerApp({ store });
      const full = json.evaluation_id as string;
      expect(await (await app.request("/drift")).text()).toContain(`href="/drift/${full}"`);
      const page = await app.request(`/drift/${full}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("Marta: first below 0.8 at turn 6");
      const api = (await (await app.request("/api/drift")).json()) as { drift: { id: string }[] };
      expect(api.drift.map((d) => d.id)).toEqual([full]);
    } finally {
      await store.close();
    }
    // The persona was stored as an agent: --agent alone probes it again.
    const again = await cli([
      "drift",
      "--agent",
      "marta",
      "--target-url",
      server.url,
      "--turns",
      "8",
      "--probes",
      probes,
      "--seeds",
      "1",
      "--db",
      db,
    ]);
    expect([again.code, again.stdout]).toEqual([0, r.stdout]);
  });

  it("schema drift-probes and schema drift print the formats' JSON Schemas", async () => {
    const probesSchema = JSON.parse((await cli(["schema", "drift-probes"])).stdout);
    expect(probesSchema.properties.format.const).toBe("dramaturg.drift-probes/v1");
    const resultSchema = JSON.parse((await cli(["schema", "drift"])).stdout);
    expect(resultSchema.properties.format.const).toBe("dramaturg.drift/v1");
  });
});
