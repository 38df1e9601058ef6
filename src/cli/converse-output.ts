// What `converse` prints of its jobs' outcome: one trial as the result document (or its table), more as the
// trials and pass^k; the jobs that could not complete and the passes without a score on stderr.
import { writeFileSync } from "node:fs";
import {
  type ConversationJobsOutcome,
  type ConversationTrials,
  renderConversationMarkdown,
  renderConversationTable,
  renderTrials,
  unscoredJobs,
} from "../conversations/index.ts";
import { redactSecrets } from "../core/index.ts";

/** The evaluations of every trial of the jobs that ran, in job order: what the HTML report shows. */
export function evaluationIdsOf(outcome: ConversationJobsOutcome): string[] {
  return outcome.slots.flatMap(
    (j) => j?.trials.flatMap((t) => (t.evaluation_id ? [t.evaluation_id] : [])) ?? [],
  );
}

/** Prints the outcome in `format` (to `out`, or stdout); says on stderr what could not complete or score. */
export function printConversationJobs(
  { slots, failures }: ConversationJobsOutcome,
  { format: asked, out, trials }: { format: string; out?: string; trials: number },
): void {
  const done = slots.filter((r): r is ConversationTrials => r !== undefined);
  const failed = failures.map(({ job, error }) => ({
    job,
    error: {
      name: (error as Error)?.name ?? "Error",
      message: redactSecrets((error as Error)?.message ?? String(error)),
    },
  }));
  // One trial prints as before: the result document; more print the trials and pass^k.
  const shown = trials === 1 ? done.map((r) => r.trials[0]!) : done;
  // With --format html the report is written already; the log still gets the table.
  const format = asked === "html" ? "table" : asked;
  const text =
    asked === "html" && !out
      ? ""
      : format === "json"
        ? `${JSON.stringify(
            failed.length > 0 ? { jobs: shown, failed } : shown.length === 1 ? shown[0] : { jobs: shown },
            null,
            2,
          )}\n`
        : done.length === 0
          ? ""
          : trials > 1
            ? `${renderTrials(done, format === "markdown" ? "markdown" : "table")}\n`
            : format === "markdown"
              ? `${renderConversationMarkdown(done.map((r) => r.trials[0]!))}\n`
              : `${renderConversationTable(done.map((r) => r.trials[0]!))}\n`;
  if (out && asked !== "html") {
    writeFileSync(out, text);
    process.stderr.write(`wrote ${out}\n`);
  } else process.stdout.write(text);
  for (const f of failed)
    process.stderr.write(`dramaturg: ${f.job} could not complete: ${f.error.message}\n`);
  // A pass without a score is said here; a job none of whose passes scored, in any trial, could not
  // complete: a dead agent must not pass for want of a threshold.
  const unscored = unscoredJobs(done);
  for (const r of done)
    if (!unscored.includes(r))
      for (const [i, t] of r.trials.entries())
        for (const p of t.passes)
          if (p.unscored !== undefined)
            process.stderr.write(
              `dramaturg: ${r.job}${trials > 1 ? ` trial ${i + 1}` : ""} ${p.pass.replace("_", " ")}: no score: ${redactSecrets(p.unscored)}\n`,
            );
  // A simulator fault is the simulated user's, not the agent's: said apart, with why.
  for (const r of done)
    for (const f of r.simulator_faults ?? [])
      process.stderr.write(
        `dramaturg: ${r.job}${trials > 1 ? ` trial ${f.trial}` : ""}: simulator fault (the simulated user broke its brief; kept out of the agent's score${r.pass_k ? " and pass^k" : ""}): ${redactSecrets(f.reason)}\n`,
      );
  for (const r of unscored)
    process.stderr.write(
      `dramaturg: ${r.job} could not be scored: ${redactSecrets([...new Set(r.trials.map((t) => t.unscored))].join("; "))}\n`,
    );
}
