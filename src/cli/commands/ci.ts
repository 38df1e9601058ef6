// `dramaturg ci`: evaluate the agents that have baselines, compare, write the PR comment and JUnit XML,
// and exit 1 on a regression. Baselines are read and checked against the transcript before any judging.
import { writeFileSync } from "node:fs";
import { type Command, Option } from "commander";
import { InputError, shownPath, type Transcript, transcriptChannels } from "../../core/index.ts";
import {
  type BaselineFolder,
  type CiDashboardLinks,
  type CiReport,
  checkAgainstBaselines,
  ciExitCode,
  type GitHubContext,
  gitHubContextFromEnv,
  measurementOf,
  publishCiReport,
  readBaselineFolder,
  renderCiJunit,
  renderCiMarkdown,
  renderCiTable,
  withAgreement,
} from "../../regression/index.ts";
import type { Store } from "../../store/index.ts";
import { dropCiRedteam, planCiRedteam, runCiRedteam, withRedteamExitCode } from "../ci-redteam.ts";
import { addEvaluationOptions, type EvalFlags } from "../evaluation-options.ts";
import { setExitCode } from "../exit-code.ts";
import { kappaFlag, tableOrJson } from "../flags.ts";
import { ENSEMBLE_DEMO_ARGS, examples } from "../help-examples.ts";
import { writeHtmlReport } from "../html-report.ts";
import { checkOutputPaths } from "../output-paths.ts";
import { type EvaluationOutcome, evaluate, measure, setupEvaluation } from "../persona-evaluation.ts";

export interface CiFlags extends EvalFlags {
  markdown?: string;
  junit?: string;
  html?: string;
  minAgreement?: string;
  calibration?: string;
  dashboardUrl?: string;
  github?: boolean;
  /** false with --no-redteam. */
  redteam?: boolean;
}

export function registerCiCommand(program: Command): void {
  addEvaluationOptions(
    program
      .command("ci")
      .description(
        "evaluate the agents that have baselines and fail (exit 1) when a dimension fell more than the threshold",
      )
      .argument("[transcripts...]", "transcript files; default: the project's sources"),
  )
    .option("--baselines <dir>", "baselines folder (default: baselines in dramaturg.yaml, else ./baselines)")
    .option("--threshold <points>", "a drop of more than this many points is a regression (default 1.0)")
    .option("--markdown <file>", "write a pull-request comment (Markdown) here")
    .option("--junit <file>", "write JUnit XML here (one test case per agent × dimension)")
    .option("--html <file>", "write the HTML report here: one self-contained file to keep as a CI artifact")
    .option(
      "--dashboard-url <url>",
      "the dashboard (dramaturg serve) that holds this check's runs: the Markdown and HTML reports link each run, regressed dimension and fallen proposition to its verdicts there (also DRAMATURG_DASHBOARD_URL, ci.dashboard_url)",
    )
    .option(
      "--github",
      "on GitHub Actions: post the Markdown as the pull request's one comment (updated on each push) and append it to the job summary (GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_EVENT_PATH, GITHUB_STEP_SUMMARY); the Action's script",
    )
    .option(
      "--min-agreement <kappa>",
      "also fail when a compared proposition's judge agrees with people below this quadratic κ, or was never calibrated (default: thresholds.agreement)",
    )
    .option(
      "--calibration <file>",
      "with --min-agreement: the calibration to read (dramaturg calibrate --format json --out FILE); default: the store's latest of the judge",
    )
    .option("--no-redteam", "skip the red team of the project file's redteam: block")
    .addOption(
      new Option("--format <format>", "output format (html: the report on stdout)")
        .choices(["table", "json", "html"])
        .default("table"),
    )
    .addHelpText(
      "after",
      `${examples(
        "dramaturg ci",
        `dramaturg ci ${ENSEMBLE_DEMO_ARGS} --baselines examples/ensemble/baselines --markdown persona-check.md --junit persona-check.xml`,
        "dramaturg ci --trials 3 --threshold 1.5 --format json",
        "dramaturg ci --junit persona-check.xml --html persona-check.html",
        "dramaturg ci --github --junit persona-check.xml --html persona-check.html",
      )}
A stale baseline (persona, propositions or judge changed) is reported, not compared, and does not fail.
With --min-agreement, a compared proposition whose judge is below the κ, not labelled, or whose claim changed
since its calibration is reported and fails the check.
With --trials N a drop fails only when every trial is below baseline − threshold.
With a redteam: block in the project file, the red team runs after the check (--no-redteam skips it) and fails
it under its min_robustness.
Exit codes: 0 no regression · 1 regression · 2 bad input or baselines · 3 could not complete
`,
    )
    .action(async (transcripts: string[], flags) => setExitCode(await ciCommand(transcripts, flags)));
}

/** No verdict came back, only errors: there is nothing to compare. */
const everyVerdictErrored = ({ result }: Pick<EvaluationOutcome, "result">) =>
  result.totals.verdicts === 0 && result.totals.errored > 0;

/** Every baseline must name an agent (and channel) of the transcript: else it was made from another one. */
function checkBaselinesMatch(folder: BaselineFolder, transcript: Transcript): void {
  const agents = new Set(transcript.agents.map((a) => a.id));
  for (const [id, { file }] of folder.agents)
    if (!agents.has(id))
      throw new InputError(
        `the baseline is for agent "${id}", who is not in the transcript (agents: ${[...agents].map((a) => `"${a}"`).join(", ")}); delete the file or evaluate the transcript it was made from`,
        { file: shownPath(file), place: "agent.id" },
      );
  const env = folder.environments;
  if (!env) return;
  const channels = new Set(transcriptChannels(transcript));
  for (const channel of Object.keys(env.baseline.channels))
    if (!channels.has(channel))
      throw new InputError(
        `a baseline for channel "${channel}", which is not in the transcript (channels: ${[...channels].map((c) => `"${c}"`).join(", ")})`,
        { file: shownPath(env.file), place: `channels.${channel}` },
      );
}

export async function ciCommand(sources: string[], flags: CiFlags): Promise<number> {
  checkOutputPaths({
    "--markdown": flags.markdown,
    "--junit": flags.junit,
    "--html": flags.html,
    "--out": flags.out,
  });
  const html = flags.format === "html";
  const format = html ? "table" : tableOrJson(flags.format);
  // Read before anything is judged: a malformed GITHUB_* variable or event file stops the check here.
  const github: GitHubContext | undefined = flags.github ? gitHubContextFromEnv() : undefined;
  const setup = setupEvaluation(sources, flags);
  const { settings } = setup;
  const folder = readBaselineFolder(settings.baselines);
  const minKappa = kappaFlag(flags.minAgreement, "--min-agreement") ?? settings.thresholds.agreement;
  const calibrationPath = flags.calibration ?? settings.calibration;
  // Read before anything is judged: a bad calibration file stops the check here.
  const calibrationFile =
    minKappa !== undefined && calibrationPath !== undefined
      ? {
          path: shownPath(calibrationPath),
          figures: (await import("../../calibration/index.ts")).readCalibrationFile(calibrationPath),
        }
      : undefined;
  // Checked as `dramaturg redteam` checks its flags, before anything is judged: a bad key stops the check here.
  const redteam =
    flags.redteam !== false && settings.redteam ? await planCiRedteam(setup.resolved, flags.db) : undefined;
  const notes: string[] = [];
  const selectAgents = (transcript: Transcript) => {
    checkBaselinesMatch(folder, transcript);
    const baselined = [...folder.agents.keys()];
    if (!settings.agents) return baselined;
    for (const a of settings.agents)
      if (!folder.agents.has(a))
        notes.push(`agent "${a}" has no baseline; run \`dramaturg baseline --agents ${a}\``);
    const chosen = baselined.filter((a) => settings.agents!.includes(a));
    if (chosen.length === 0)
      throw new InputError("none of these agents has a baseline", { place: "--agents" });
    return chosen;
  };
  if (flags.dryRun) {
    await evaluate(setup, { selectAgents, dryRun: { format } });
    if (redteam) process.stderr.write(`then the ${redteam.summary} (a dry run calls no model)\n`);
    await dropCiRedteam(redteam);
    return 0;
  }
  // The HTML report reads the stored verdicts, so it is written (with the check's table on top) before the
  // run's store is closed.
  const reports = [...(flags.html ? [flags.html] : []), ...(html ? [undefined] : [])];
  let checked: CiReport | undefined;
  const dashboardUrl = settings.ci?.dashboard_url;
  let links: CiDashboardLinks | undefined;
  const check = async (store: Store, measured: EvaluationOutcome): Promise<CiReport> => {
    const { result } = measured;
    let report = checkAgainstBaselines(measurementOf(measured, settings.baselines), folder, {
      threshold: settings.thresholds.regression,
      trials: settings.trials,
    });
    if (minKappa !== undefined) {
      const { ciAgreement } = await import("../ci-agreement.ts");
      const agreement = await ciAgreement({ store, report, minKappa, file: calibrationFile });
      report = withAgreement(report, agreement.check);
      report.notes.push(...agreement.notes);
    }
    report.notes.push(...notes);
    for (const s of [...report.agents, ...report.channels]) s.file = shownPath(s.file);
    if (result.totals.errored > 0)
      report.notes.push(`${result.totals.errored} verdicts errored and were left out of the scores`);
    return report;
  };
  const { result } = await measure(setup, {
    selectAgents,
    beforeClose: async (store, measured) => {
      if (everyVerdictErrored(measured)) return;
      checked = await check(store, measured);
      if (dashboardUrl !== undefined)
        links = {
          url: dashboardUrl,
          runs: new Map(measured.result.runs.map((r) => [r.agent_id, r.run_id])),
        };
      for (const out of reports)
        await writeHtmlReport(store, {
          evaluationIds: [measured.result.evaluation_id],
          out,
          title: "Dramaturg persona check",
          ciReport: checked,
          baselines: folder,
          ...(links ? { dashboardLinks: links } : {}),
          regressionThreshold: settings.thresholds.regression,
        });
    },
  });
  if (everyVerdictErrored({ result }) || !checked) {
    process.stderr.write("dramaturg: every verdict errored; the check could not complete\n");
    await dropCiRedteam(redteam);
    return 3;
  }
  const report = checked;
  const red = redteam && (await runCiRedteam(redteam));
  const markdown = renderCiMarkdown(report, links) + (red?.markdown ?? "");
  if (flags.markdown) {
    writeFileSync(flags.markdown, markdown);
    process.stderr.write(`wrote ${flags.markdown}\n`);
  }
  if (github) {
    const published = await publishCiReport(markdown, github);
    if (published.comment)
      process.stderr.write(
        `${published.comment.action} the pull request's comment${published.comment.url ? ` ${published.comment.url}` : ""}\n`,
      );
    // On a pull request a comment left out is a warning annotation on the run (the check's exit code stands);
    // on a push it is expected.
    const prefix = github.pullRequest === undefined ? "dramaturg: " : "::warning::dramaturg: ";
    for (const note of published.notes) process.stderr.write(`${prefix}${note}\n`);
  }
  if (flags.junit) {
    writeFileSync(flags.junit, renderCiJunit(report, { suites: red?.suites }));
    process.stderr.write(`wrote ${flags.junit}\n`);
  }
  if (!html && format === "json")
    process.stdout.write(`${JSON.stringify(red ? { ...report, redteam: red.outcome } : report, null, 2)}\n`);
  else if (!html) process.stdout.write(renderCiTable(report) + (red?.table ?? ""));
  return withRedteamExitCode(ciExitCode(report), red?.outcome);
}
