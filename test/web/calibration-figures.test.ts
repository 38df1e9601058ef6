// How the calibration pages print figures and their intervals: true minus signs, no "-0.00", no "−0.25–−0.25".
import { describe, expect, it } from "vitest";
import { figure, interval } from "../../src/web/calibration-figures.ts";

describe("calibration figures", () => {
  it("prints a figure that rounds to zero as 0.00, never with a sign", () => {
    expect(figure(-0.001)).toBe("0.00");
    expect(figure(-0.004, "bias")).toBe("0.00");
    expect(figure(0.004, "spearman")).toBe("0.00");
  });

  it("prints a negative figure with a true minus, and a bias with its sign", () => {
    expect(figure(-0.25, "spearman")).toBe("−0.25");
    expect(figure(0.5, "bias")).toBe("+0.50");
    expect(figure(-0.5, "bias")).toBe("−0.50");
  });

  it("writes an interval with a negative bound as 'low to high', a positive one as 'low–high'", () => {
    expect(interval([-0.25, 0.4], "spearman")).toBe("−0.25 to 0.40");
    expect(interval([0.1, 0.4], "spearman")).toBe("0.10–0.40");
    expect(interval([0.5, 0.9], "exact")).toBe("50–90 %");
  });

  it("writes an interval whose bounds print the same as one value, not a range of it to itself", () => {
    expect(interval([-0.25, -0.25], "kappa_quadratic")).toBe("−0.25 in every resample");
    expect(interval([-0.0001, 0.0001], "bias")).toBe("0.00 in every resample");
    expect(interval([1, 1], "within_1")).toBe("100 %");
  });
});
