// agent_evaluation_config: an agent's correction settings, defaults when none are stored, set a few keys at
// a time, and resolved as stored row > project file > defaults.
import { expect, test } from "vitest";
import { DEFAULT_CORRECTION_SETTINGS, InputError } from "../../src/core/index.ts";
import { agentCorrectionSettings } from "../../src/store/index.ts";
import { describeStore } from "./backends.ts";

describeStore("agent correction settings", ({ store, fresh }) => {
  test("an agent with nothing stored gets the defaults, every correction off", async () => {
    const config = await store().agentConfig.get("g-nobody");
    expect(config).toEqual(DEFAULT_CORRECTION_SETTINGS);
    expect(config.gate_adherence_enabled).toBe(false);
    expect(config.gate_fluency_threshold).toBe(7);
    expect(await store().agentConfig.find("g-nobody")).toBeUndefined();
  });

  test("setting a few keys stores them over the defaults", async () => {
    const row = await store().agentConfig.set("g-marta", {
      gate_adherence_enabled: true,
      gate_fluency_threshold: 6.5,
    });
    expect(row.agent_id).toBe("g-marta");
    expect(row.config).toEqual({
      ...DEFAULT_CORRECTION_SETTINGS,
      gate_adherence_enabled: true,
      gate_fluency_threshold: 6.5,
    });
    expect(await store().agentConfig.get("g-marta")).toEqual(row.config);
  });

  test("setting again keeps the keys not given and moves updated_at", async () => {
    const first = await store().agentConfig.set("g-otto", { gate_consistency_enabled: true });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await store().agentConfig.set("g-otto", { max_correction_attempts: 4 });
    expect(second.config).toMatchObject({ gate_consistency_enabled: true, max_correction_attempts: 4 });
    expect(Date.parse(second.updated_at)).toBeGreaterThan(Date.parse(first.updated_at));
  });

  test("an agent that was never imported can have settings", async () => {
    expect(await store().agents.get("g-app-agent")).toBeUndefined();
    await store().agentConfig.set("g-app-agent", { repetition_suppression_enabled: true });
    expect((await store().agentConfig.get("g-app-agent")).repetition_suppression_enabled).toBe(true);
  });

  test("an unknown key is an input error naming it, and nothing is written", async () => {
    const error = await store()
      .agentConfig.set("g-typo", { gate_adherance_enabled: true } as never)
      .catch((e: unknown) => e);
    expect(InputError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/gate_adherance_enabled/);
    expect(await store().agentConfig.find("g-typo")).toBeUndefined();
  });

  test("a value out of range is an input error naming the key and what it takes", async () => {
    const error = await store()
      .agentConfig.set("g-range", { max_action_similarity: 1.5 })
      .catch((e: unknown) => e);
    expect(InputError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/max_action_similarity: expected .*1/);
    expect(await store().agentConfig.find("g-range")).toBeUndefined();
  });

  test("stored settings are listed by agent id", async () => {
    const s = await fresh();
    await s.agentConfig.set("zed", { gate_fluency_enabled: true });
    await s.agentConfig.set("amy", {});
    expect((await s.agentConfig.list()).map((r) => r.agent_id)).toEqual(["amy", "zed"]);
  });

  test("thresholds are single-precision reals, as the columns keep them", async () => {
    const row = await store().agentConfig.set("g-real", { repetition_threshold: 1 / 3 });
    expect(row.config.repetition_threshold).toBe(0.33333334);
  });

  test("without a stored row, the project file's agent settings win over its _default and the defaults", async () => {
    const resolved = await agentCorrectionSettings(store(), "g-file", {
      _default: { gate_fluency_enabled: true, gate_fluency_threshold: 5 },
      "g-file": { gate_fluency_threshold: 6 },
    });
    expect(resolved.source).toBe("project file");
    expect(resolved.config).toMatchObject({ gate_fluency_enabled: true, gate_fluency_threshold: 6 });
    expect(resolved.config.gate_adherence_enabled).toBe(false);
  });

  test("a stored row is the agent's whole configuration, over the project file", async () => {
    await store().agentConfig.set("g-both", { gate_suitability_enabled: true });
    const resolved = await agentCorrectionSettings(store(), "g-both", {
      "g-both": { gate_fluency_enabled: true },
    });
    expect(resolved.source).toBe("store");
    expect(resolved.config).toMatchObject({ gate_suitability_enabled: true, gate_fluency_enabled: false });
  });

  test("with neither a stored row nor the project file, the defaults apply", async () => {
    const resolved = await agentCorrectionSettings(store(), "g-plain", {
      other: { gate_fluency_enabled: true },
    });
    expect(resolved).toEqual({
      agent_id: "g-plain",
      config: DEFAULT_CORRECTION_SETTINGS,
      source: "default",
    });
  });
});
