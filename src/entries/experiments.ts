// The package's `dramaturg/experiments` entry: populations, scenarios, treatment vs control runs, their
// statistics and Table 1. Apart from the main entry so that importing `dramaturg` does not build their schemas.
// test/public-api.test.ts pins this list.
export type {
  ArmComparison,
  ArmSummary,
  CompareArmsOptions,
  ExperimentComparison,
  ExperimentProgressEvent,
  ExperimentResultDocument,
  MetricComparison,
  RunExperimentOptions,
  Scenario,
} from "../experiments/index.ts";
export {
  /**
   * Treatment vs control on one metric: n, mean, sd, Δ, percent change, Welch's t, df, p, 95 % CI of Δ and
   * Cohen's d (@stdlib's Welch test, SciPy's figures); undefined figures are null with a note.
   */
  compareArms,
  /** Reads a results file (Dramaturg's experiment result or TinyTroupe's) and compares its arms metric by metric. */
  compareResultSets,
  /** Generates a population (dimensions, a plan, one persona each), seeded, recordable and replayable. */
  generatePopulation,
  /** A stored experiment's result document, by id or its first 8+ characters, as `run --out` wrote it. */
  loadExperimentResult,
  /** Reads a population folder (hand-written or generated), with located errors. */
  loadPopulation,
  /** Calls, tokens and cost of an experiment per arm, before it runs: no model is called, nothing written. */
  priceExperiment,
  /** A built-in scenario by name (brainstorming-average, …) or a scenario file. */
  resolveScenario,
  /**
   * Runs a scenario: control and treatment worlds in pairs over a population, judged and stored; a rerun
   * on the same store skips finished environments. Returns the dramaturg.experiment-result/v1 document.
   */
  runExperiment,
  /** Runs the four Table 1 scenarios on one store (resumable) and holds them against the published table. */
  runTable1,
  /** Shrinks a scenario's environments and agents proportionally (never below two environments an arm). */
  scaleScenario,
} from "../experiments/index.ts";
