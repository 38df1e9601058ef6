// Calibration: how far the judge agrees with human labels. The public surface of the folder; other folders
// import only this.

export * from "./agreement.ts";
export * from "./bands.ts";
export * from "./calibrate.ts";
export * from "./calibration-evaluation.ts";
export * from "./calibration-list.ts";
export * from "./calibration-report.ts";
export * from "./calibration-source.ts";
export * from "./compare-judges.ts";
export * from "./label-items.ts";
export * from "./labelled-plan.ts";
export * from "./labels.ts";
export * from "./model-family.ts";
export * from "./order-effects.ts";
export * from "./order-effects-report.ts";
export * from "./read-labels.ts";
export * from "./rubric.ts";
export { calibrationKind } from "./stored-kind.ts";
export * from "./write-labels.ts";
