// A plain-Node user of the installed package: the three lines that evaluate the bundled example with its
// hand-written fixture verdicts, then a check that scores came back. Run where dramaturg is installed.
import { evaluatePersonas } from "dramaturg";
const ex = "node_modules/dramaturg/examples/ensemble";
const result = await evaluatePersonas({ transcript: `${ex}/transcript.json`, propositions: `${ex}/propositions`, judge: `fixtures:${ex}/judge-fixtures.json` });

if (result.format !== "dramaturg.eval-result/v1" || result.runs.length !== 4 || result.totals.errored !== 0)
  throw new Error(`unexpected result: ${JSON.stringify(result).slice(0, 300)}`);
for (const run of result.runs) console.log(`${run.agent_id}: ${run.overall_score.toFixed(2)}`);
