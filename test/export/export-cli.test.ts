// `dramaturg export` and the `export:` rules of dramaturg.yaml, through the CLI in-process: exit codes 0, 2 and 3,
// located errors in the project file, and `eval` exporting its run as it finishes.
import { existsSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { stableScoreId } from "../../src/export/index.ts";
import { cli, DEMO } from "../cli/run-cli.ts";
import { tempDir } from "../temp-dir.ts";
import { fakeCollector, fakeLangfuse } from "./fake-tools.ts";

const VARIABLES = ["LANGFUSE_PUBLIC_KEY", "LANGFUSE_SECRET_KEY", "LANGFUSE_BASE_URL", "LANGFUSE_HOST"];
afterEach(() => vi.unstubAllEnvs());

describe("dramaturg export", () => {
  it("eval with an export: rule sends its scores as it finishes; `export` again sends nothing new", async () => {
    const dir = tempDir("export-cli-");
    const langfuse = await fakeLangfuse();
    try {
      vi.stubEnv("LANGFUSE_PUBLIC_KEY", "pk-lf-test");
      vi.stubEnv("LANGFUSE_SECRET_KEY", "sk-lf-test");
      vi.stubEnv("LANGFUSE_BASE_URL", langfuse.url);
      writeFileSync(`${dir}/dramaturg.yaml`, "export:\n  - to: langfuse\n    after: [eval]\n");
      const run = await cli(["eval", ...DEMO, "--db", `${dir}/store`, "--format", "json"], { cwd: dir });
      expect(run.stderr).toMatch(/exported persona [0-9a-f]{8} to langfuse/);
      expect(run.code).toBe(0);
      const id = JSON.parse(run.stdout).evaluation_id as string;
      expect(langfuse.scores.has(stableScoreId(id, "persona|ines|adherence"))).toBe(true);
      expect(langfuse.invalid).toEqual([]);
      expect(existsSync(`${dir}/store.exports.json`)).toBe(true);

      const posts = langfuse.log.length;
      const again = await cli(
        ["export", id.slice(0, 8), "--to", "langfuse", "--db", `${dir}/store`, "--format", "json"],
        {
          cwd: dir,
        },
      );
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ sent: 0, evaluation_id: id });
      expect(langfuse.log.length).toBe(posts);

      // Refused keys: exit 3, and the message never shows the secret.
      vi.stubEnv("LANGFUSE_SECRET_KEY", "sk-lf-not-this-one");
      const refused = await cli(
        ["export", id, "--to", "langfuse", "--db", `${dir}/store`, "--ledger", `${dir}/other.json`],
        {
          cwd: dir,
        },
      );
      expect(refused.code).toBe(3);
      expect(refused.stderr).toContain("LANGFUSE_SECRET_KEY");
      expect(refused.stderr).not.toContain("sk-lf-not-this-one");
    } finally {
      await langfuse.close();
    }
  });

  it("records a collector accepted but rejected (OTLP partial success) make the export incomplete: exit 3, said", async () => {
    const dir = tempDir("export-cli-");
    const collector = await fakeCollector();
    try {
      const run = await cli(["eval", ...DEMO, "--db", `${dir}/store`, "--format", "json"], { cwd: dir });
      const id = JSON.parse(run.stdout).evaluation_id as string;
      vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url);
      collector.rejectNext(2);
      const r = await cli(["export", id, "--to", "otlp", "--db", `${dir}/store`], { cwd: dir });
      expect(r.stdout).toContain("2 rejected by the collector (partial success; not retried)");
      expect(r.code).toBe(3);
    } finally {
      await collector.close();
    }
  });

  it("without the keys in the environment it is bad usage (exit 2), and nothing is sent", async () => {
    const dir = tempDir("export-cli-");
    for (const v of VARIABLES) vi.stubEnv(v, undefined);
    const r = await cli(["export", "00000000", "--to", "langfuse", "--db", `${dir}/store`], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY");
    expect(existsSync(`${dir}/store`)).toBe(false);
  });

  it("a bad export: rule in dramaturg.yaml names the file and line (exit 2)", async () => {
    const dir = tempDir("export-cli-");
    writeFileSync(`${dir}/dramaturg.yaml`, "db: memory://\nexport:\n  - to: datadog\n");
    const r = await cli(["eval", ...DEMO], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/dramaturg\.yaml:3:\d+: to: expected one of langfuse, phoenix, otlp/);
  });
});
