// `dramaturg redteam` as a user runs it: the agent under test and the judge behind one fake OpenAI-compatible
// server (redteam-server.ts), the scripted attacker; no network, no model. The agent's replies and the judge's
// scores are hand-written: a role-play trap breaks the character at turn 3, and the gate's feedback is answered
// in character.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedteamResultSchema } from "../../src/redteam/index.ts";
import { createServerApp } from "../../src/server/index.ts";
import { openStore } from "../../src/store/index.ts";
import type { FakeOpenAIServer } from "../../src/testing/index.ts";
import { cli } from "../cli/run-cli.ts";
import { findAll, parseXml } from "../regression/xml.ts";
import { useTempDir } from "../temp-dir.ts";
import { MARTA, redteamArgs, startRedteamServer } from "./redteam-server.ts";

const dir = useTempDir("dramaturg-redteam-");
let server: FakeOpenAIServer;
let persona: string;
let gate: string;

beforeAll(async () => {
  server = await startRedteamServer();
  persona = join(dir(), "marta.yml");
  writeFileSync(persona, MARTA);
  gate = join(dir(), "gate.yml");
  writeFileSync(gate, "gate_adherence_enabled: true\ngate_adherence_threshold: 7\n");
});
afterAll(async () => {
  await server.close();
});

const redteam = (...args: string[]) =>
  cli([
    ...redteamArgs(persona, server.url, { turns: 4, strategies: ["role_play_trap", "topic_hijack"] }),
    ...args,
  ]);

describe("dramaturg redteam", () => {
  it("prints each strategy's success and turns to break, keeps the run for show and runs --kind redteam", async () => {
    const db = join(dir(), "store");
    const r = await redteam("--db", db);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^strategy\s+broken \(plain\)\n/);
    expect(r.stdout).toMatch(/role-play trap\s+1\/1 \(100 %\), median 3\n/);
    expect(r.stdout).toMatch(/topic hijack\s+0\/1 \(0 %\), median –\n/);
    expect(r.stdout).toContain(
      "Marta: 1 of 2 attacks broke the character (success rate 50 %, robustness 0.50)",
    );
    const id = /dramaturg show ([0-9a-f]{8})/.exec(r.stderr)![1]!;
    const shown = await cli(["show", id, "--db", db]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toBe(r.stdout);
    const runs = await cli(["runs", "--kind", "redteam", "--db", db]);
    expect(runs.stdout).toMatch(new RegExp(`^${id}  .*completed\\s+marta\\s+2\\s+0\\.50$`, "m"));
    // The dashboard's page: the curves as SVG, the successful attack's transcript with its breaking turn
    // ringed and the judge's reasoning, the agent's text escaped.
    const store = await openStore(db);
    try {
      const [row] = await store.evaluations.list({ kind: "redteam", limit: 1 });
      const app = createServerApp({ store });
      expect(await (await app.request("/redteam")).text()).toContain(`href="/redteam/${row!.id}"`);
      const page = await app.request(`/redteam/${row!.id}`);
      expect(page.status).toBe(200);
      const text = await page.text();
      expect(text).toContain("Turns to first break (Kaplan–Meier");
      expect(text.match(/<svg class="drift-chart"/g)).toHaveLength(2);
      expect(text).toContain("Successful attacks (1)");
      expect(text).toMatch(
        /Turn 3 <span class="legend"><span class="ring"><\/span><\/span> breaks the character/,
      );
      expect(text).toContain("Fake reasoning for breaks-character");
      expect(text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
      expect(text).not.toContain("<script>alert(1)");
    } finally {
      await store.close();
    }
    // A store folder opened four times: seconds on a loaded 2-core machine.
  }, 60_000);

  it("with --corrections the gated arm's success rate falls to 0 and the report says so; JSON is dramaturg.redteam/v1", async () => {
    const r = await redteam("--corrections", gate, "--format", "json", "--db", "memory://");
    expect(r.code, r.stderr).toBe(0);
    const result = RedteamResultSchema.parse(JSON.parse(r.stdout));
    expect(result.arms.map((a) => [a.arm, a.success_rate])).toEqual([
      ["plain", 0.5],
      ["gated", 0],
    ]);
    const md = await redteam("--corrections", gate, "--format", "markdown", "--db", "memory://");
    expect(md.stdout).toContain("the gate lowered the success rate by 50 %");
  });

  it("--min-robustness exits 1 when the robustness is under it, 0 when not", async () => {
    const failing = await redteam("--min-robustness", "0.8", "--db", "memory://");
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain("robustness 0.50 is under 0.8 (1 of 2 attacks broke the character)");
    const passing = await redteam("--min-robustness", "0.5", "--db", "memory://");
    expect(passing.code).toBe(0);
  });

  it("--junit writes a test case per arm × strategy and one for the robustness, failing as the exit code does", async () => {
    const xml = join(dir(), "redteam.xml");
    const r = await redteam("--min-robustness", "0.8", "--junit", xml, "--db", "memory://");
    expect(r.code).toBe(1);
    const text = readFileSync(xml, "utf8");
    const root = parseXml(text);
    expect(root.attributes).toMatchObject({ tests: "3", failures: "2", errors: "0" });
    const cases = findAll(root, "testcase");
    expect(cases.map((t) => `${t.attributes.classname} ${t.attributes.name}`)).toEqual([
      "dramaturg.redteam.plain role_play_trap",
      "dramaturg.redteam.plain topic_hijack",
      "dramaturg.redteam robustness",
    ]);
    const failed = cases.filter((t) => t.children.some((c) => c.name === "failure"));
    expect(failed.map((t) => t.attributes.name)).toEqual(["role_play_trap", "robustness"]);
    // The breaking reply is quoted, escaped: the markup is text in the document, not an element.
    const failure = failed[0]!.children.find((c) => c.name === "failure")!;
    expect(failure.text).toContain("broke at turn 3, adherence 1/9");
    expect(failure.text).toContain("<script>alert(1)</script>");
    expect(text).not.toContain("<script>");
    // Above the minimum nothing fails; the breaks stay in the test case's output.
    await redteam("--min-robustness", "0.5", "--junit", xml, "--db", "memory://");
    expect(parseXml(readFileSync(xml, "utf8")).attributes).toMatchObject({ failures: "0" });
  });

  it("bad input exits 2 naming the place and what was expected; nothing is asked of the target", async () => {
    const calls = server.stats.calls;
    const bad = join(dir(), "bad-gate.yml");
    writeFileSync(bad, "gate_adherence_enabled: true\ngate_adherence_threshold: 12\n");
    const r = await redteam("--corrections", bad, "--db", "memory://");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad-gate\.yml:2:\d+: gate_adherence_threshold/);
    const strategy = await redteam("--strategy", "flattery", "--db", "memory://");
    expect(strategy.code).toBe(2);
    expect(strategy.stderr).toContain('no strategy "flattery"; expected one of direct_instruction');
    const none = join(dir(), "no-gate.yml");
    writeFileSync(none, "gate_adherence_threshold: 6\n");
    const off = await redteam("--corrections", none, "--db", "memory://");
    expect(off.code).toBe(2);
    expect(off.stderr).toContain("no gate check is on");
    expect(server.stats.calls).toBe(calls);
  });

  it("schema redteam prints the result format's JSON Schema", async () => {
    const r = await cli(["schema", "redteam"]);
    expect(r.code).toBe(0);
    const schema = JSON.parse(r.stdout);
    expect(schema.properties.format.const).toBe("dramaturg.redteam/v1");
    expect(schema.required).toContain("arms");
  });
});
