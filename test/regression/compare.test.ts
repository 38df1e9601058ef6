import { describe, expect, it } from "vitest";
import { checkAgainstBaselines, ciExitCode, regressionStatus } from "../../src/regression/index.ts";
import { demoFolder, lower, measurementOf } from "./measurement.ts";

const rule = { threshold: 1, trials: 1 };

function status(report: ReturnType<typeof checkAgainstBaselines>, who: string, dimension: string) {
  return [...report.agents, ...report.channels]
    .find((s) => s.id === who)!
    .dimensions.find((d) => d.dimension === dimension)!;
}

describe("the regression rule", () => {
  it("a drop of exactly the threshold is not a regression; a larger one is", () => {
    expect(regressionStatus(7.5, 6.5, [6.5], 1)).toBe("ok");
    expect(regressionStatus(7.5, 6.499, [6.499], 1)).toBe("regression");
  });

  it("with trials, a drop is a regression only when every trial is below baseline − threshold", () => {
    expect(regressionStatus(7, 5, [5, 5.5, 4.5], 1)).toBe("regression");
    expect(regressionStatus(7, 5.6, [4.4, 4.4, 8], 1)).toBe("noise");
  });

  it("a rise is never a regression", () => {
    expect(regressionStatus(3, 9, [9], 1)).toBe("ok");
  });
});

describe("checking a measurement against its baselines", () => {
  it("the same scores pass, with every dimension compared", () => {
    const folder = demoFolder();
    const report = checkAgainstBaselines(measurementOf(folder), folder, rule);
    expect(report.passed).toBe(true);
    expect(report.counts).toMatchObject({ regressions: 0, stale: 0, compared: 15 });
    expect(ciExitCode(report)).toBe(0);
  });

  it("adherence two points lower is a regression of that agent and dimension, exit 1", () => {
    const folder = demoFolder();
    const m = measurementOf(folder);
    lower(m, "dov", "adherence", [2]);
    const report = checkAgainstBaselines(m, folder, rule);
    expect(status(report, "dov", "adherence")).toMatchObject({ status: "regression", delta: -2 });
    expect(status(report, "dov", "fluency").status).toBe("ok");
    expect(ciExitCode(report)).toBe(1);
  });

  it("the propositions that fell carry their recommendations", () => {
    const folder = demoFolder(["dov"]);
    const m = measurementOf(folder);
    lower(m, "dov", "adherence", [2]);
    const fell = status(checkAgainstBaselines(m, folder, rule), "dov", "adherence").propositions.filter(
      (p) => p.fell,
    );
    expect(fell.map((p) => p.id)).toContain("persona-traits");
    expect(fell.find((p) => p.id === "persona-traits")!.recommendations).toMatch(/persona's traits/);
  });

  it("judge noise within the trials' spread does not fail, even when the mean fell past the threshold", () => {
    const folder = demoFolder(["dov"]);
    const m = measurementOf(folder, 3);
    lower(m, "dov", "adherence", [2.5, 2.5, 0]);
    const report = checkAgainstBaselines(m, folder, { threshold: 1, trials: 3 });
    expect(status(report, "dov", "adherence").status).toBe("noise");
    expect(ciExitCode(report)).toBe(0);
  });

  it("a drop that holds in every trial fails", () => {
    const folder = demoFolder(["dov"]);
    const m = measurementOf(folder, 3);
    lower(m, "dov", "adherence", [2, 1.5, 2.5]);
    expect(ciExitCode(checkAgainstBaselines(m, folder, { threshold: 1, trials: 3 }))).toBe(1);
  });

  it("a changed persona makes the agent's baseline stale: not compared, so even a big drop passes", () => {
    const folder = demoFolder(["ines"]);
    const m = measurementOf(folder);
    m.agents[0]!.persona_hash = "0123456789abcdef";
    lower(m, "ines", "adherence", [4]);
    const report = checkAgainstBaselines(m, folder, rule);
    expect(status(report, "ines", "adherence")).toMatchObject({ status: "stale" });
    expect(report.agents[0]!.stale[0]).toMatch(/persona changed/);
    expect(ciExitCode(report)).toBe(0);
  });

  it("a changed proposition set makes only that dimension stale", () => {
    const folder = demoFolder(["ines"]);
    const m = measurementOf(folder);
    m.agents[0]!.dimensions.fluency!.propositions_hash = "ffffffffffffffff";
    const report = checkAgainstBaselines(m, folder, rule);
    expect(status(report, "ines", "fluency").status).toBe("stale");
    expect(status(report, "ines", "adherence").status).toBe("ok");
  });

  it("a different judge makes every baseline stale", () => {
    const folder = demoFolder(["ines"]);
    const m = measurementOf(folder);
    m.judge = { ...m.judge, provider: "openai", model: "fake-model-b", prompt_version: "v1" };
    const report = checkAgainstBaselines(m, folder, rule);
    expect(report.agents[0]!.stale[0]).toMatch(/judge changed/);
    expect(report.counts.stale).toBeGreaterThan(0);
  });

  it("voice divergence falling is a regression of the channel; fewer ideas is only reported", () => {
    const folder = demoFolder(["dov"]);
    const m = measurementOf(folder);
    const onAir = m.channels.find((c) => c.channel === "on-air")!;
    onAir.dimensions.convergence!.score = 1.5;
    onAir.dimensions.convergence!.trials = [{ trial: 1, score: 1.5 }];
    onAir.dimensions.ideas_quantity!.count = 1;
    const report = checkAgainstBaselines(m, folder, rule);
    expect(status(report, "on-air", "convergence").status).toBe("regression");
    expect(status(report, "on-air", "ideas_quantity")).toMatchObject({ status: "info", delta: -5 });
  });

  it("a dimension whose verdicts all errored is not scored and the check exits 3", () => {
    const folder = demoFolder(["dov"]);
    const m = measurementOf(folder);
    m.agents[0]!.dimensions.consistency!.score = null;
    const report = checkAgainstBaselines(m, folder, rule);
    expect(status(report, "dov", "consistency").status).toBe("no-score");
    expect(ciExitCode(report)).toBe(3);
  });
});
