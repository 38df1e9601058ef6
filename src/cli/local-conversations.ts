// `converse` without --queue: the jobs run in this process, a few at once, against one store (a PGlite
// folder is opened once, whatever the number of jobs), with live progress on a terminal: which job and pass
// is at which exchange. With --format html the report is written before the store closes.
import { type ConversationJobsOutcome, runConversationJobs } from "../conversations/index.ts";
import { openStore } from "../store/index.ts";
import { evaluationIdsOf } from "./converse-output.ts";
import type { ConverseFlags, ConverseSettings } from "./converse-settings.ts";
import { writeHtmlReport } from "./html-report.ts";
import { rateLimitSettingsOf } from "./judge-rate-limit.ts";
import { simulatedUserModel } from "./simulated-user-model.ts";

/** Runs the jobs here and returns each one's trials, or why it could not complete. */
export async function runLocalConversations(
  { loaded, minScore, seed, trials, jobs, settings, simulatedUser }: ConverseSettings,
  flags: ConverseFlags,
): Promise<ConversationJobsOutcome> {
  const userModel = flags.replay === undefined ? simulatedUserModel(flags) : undefined;
  const store = await openStore(settings.db);
  const live = process.stderr.isTTY === true && flags.progress !== false;
  let ended = 0;
  const draw = (text: string) => {
    if (live) process.stderr.write(`\r\x1b[2K${text}`);
  };
  try {
    // The store stays open until every job is done, those that fail included.
    const outcome = await runConversationJobs(
      loaded.map(({ file, job }) => ({ name: file, job })),
      {
        jobs,
        trials,
        minScore,
        record: flags.record,
        replay: flags.replay,
        userModel,
        judge: flags.judge,
        judgeSettings: {
          baseUrl: flags.judgeBaseUrl,
          apiKeyEnv: flags.judgeApiKeyEnv,
          ...rateLimitSettingsOf(settings),
        },
        targetUrl: flags.targetUrl,
        passes: flags.passes,
        seed,
        simulatedUser,
        store,
        onTurn: ({ job, trial, pass, turn, of }) =>
          draw(
            `jobs ${ended}/${loaded.length} · ${job}${trials > 1 ? ` trial ${trial}/${trials}` : ""} ${pass.replace("_", " ")}: exchange ${turn}/${of}`,
          ),
        onJobEnd: (n) => {
          ended = n;
          draw(`jobs ${ended}/${loaded.length}`);
        },
      },
    );
    // The report reads the stored conversations: written before a memory:// store lets them go.
    if (flags.format === "html")
      await writeHtmlReport(store, { evaluationIds: evaluationIdsOf(outcome), out: flags.out });
    return outcome;
  } finally {
    if (live) process.stderr.write("\r\x1b[2K");
    await store.close();
  }
}
