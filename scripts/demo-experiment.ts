// `npm run demo:experiment`: a treatment-vs-control experiment end to end, offline, in seconds. Hand-written
// scripted doubles stand in for the models (test/experiments/scripted-experiment-model.ts): persona agents
// whose first drafts often break character, and a judge that scores a message by whether it does. The
// treatment arm runs the action gate, which asks for a redraft in character; the control arm does not. The
// report then shows the treatment's adherence significantly higher. No key, no network; a clone only (the
// doubles live with the tests).
//   node --import tsx scripts/demo-experiment.ts [--svg FILE]
import { writeFileSync } from "node:fs";
import {
  experimentReport,
  renderExperimentChart,
  renderExperimentReportTable,
  runExperiment,
} from "../src/experiments/index.ts";
import {
  driftingAgentModel,
  experimentJudge,
  people,
  tinyScenario,
} from "../test/experiments/scripted-experiment-model.ts";

const svgAt = process.argv.indexOf("--svg");
const svg = svgAt > 0 ? process.argv[svgAt + 1] : undefined;

const started = performance.now();
const run = await runExperiment(tinyScenario(), {
  model: driftingAgentModel(),
  modelName: "scripted (hand-written): drafts break character 60% of the time",
  judge: experimentJudge(),
  population: { people: people(6) },
  store: "memory://",
  onProgress: (event) => {
    if (event.type === "environment" && event.phase === "completed")
      process.stderr.write(`  ${event.arm} environment ${event.index + 1}: completed\n`);
  },
});
const { report, chart } = experimentReport(run.document);
process.stdout.write(renderExperimentReportTable(report));
if (svg) writeFileSync(svg, renderExperimentChart(chart));
process.stderr.write(
  `\n${((performance.now() - started) / 1000).toFixed(1)} s; the models were scripted (hand-written), not a real LLM's answers.${svg ? ` Chart: ${svg}` : ""}\n`,
);
