// A plain-Node user of the installed package: evaluates the bundled example with the fixture judge.
// Run from the folder where dramaturg is installed; prints each agent's overall score.
import { evaluatePersonas } from "dramaturg";

const example = "node_modules/dramaturg/examples/ensemble";
const result = await evaluatePersonas({
  transcript: `${example}/transcript.json`,
  propositions: `${example}/propositions`,
  judge: `fixtures:${example}/judge-fixtures.json`,
});
if (result.format !== "dramaturg.eval-result/v1" || result.runs.length === 0)
  throw new Error(`unexpected result: ${JSON.stringify(result).slice(0, 300)}`);
for (const run of result.runs) console.log(`${run.agent_id}: ${run.overall_score}`);
