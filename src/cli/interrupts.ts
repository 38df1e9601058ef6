// Ctrl-C and SIGTERM during a long command: the first asks the evaluation to stop (calls in flight get
// a short grace, what was judged is kept, the run is marked interrupted); a second one quits at once,
// which still leaves a resumable run (its verdicts are committed as they arrive) — once the evaluation is
// in the store; a third quits even before that.

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * Runs `work` with an AbortSignal that the first SIGINT/SIGTERM aborts; restores the default handling after.
 * `resumable` settles once a run to resume exists (an evaluation that judges while its store opens has
 * none until the store is open): a second Ctrl-C before then waits for it, so that the run can still be
 * resumed; a third quits at once, leaving nothing to resume.
 */
export async function withInterrupts<T>(
  work: (signal: AbortSignal) => Promise<T>,
  {
    resumable,
    resumeWith = "dramaturg eval --resume",
  }: { resumable?: Promise<void> /** The command that completes the run. */; resumeWith?: string } = {},
): Promise<T> {
  const controller = new AbortController();
  let canResume = resumable === undefined;
  void resumable?.then(() => {
    canResume = true;
  });
  let quitting = false;
  const quit = () => {
    process.stderr.write(`\ndramaturg: stopped at once; \`${resumeWith}\` completes the run\n`);
    process.exit(130);
  };
  const onSignal = (name: NodeJS.Signals) => {
    if (!controller.signal.aborted) {
      process.stderr.write(
        `\ndramaturg: ${name === "SIGINT" ? "Ctrl-C" : name}: finishing the judge calls in flight and keeping what was judged (press Ctrl-C again to quit at once)\n`,
      );
      controller.abort(new Error(`interrupted by ${name}`));
    } else if (canResume) quit();
    else if (!quitting) {
      quitting = true;
      process.stderr.write(
        "\ndramaturg: stopping as soon as the store holds the evaluation, so that it can be resumed (press Ctrl-C again to quit now, with nothing to resume)\n",
      );
      void resumable?.then(quit);
    } else {
      process.stderr.write(
        "\ndramaturg: stopped at once, before the store had the evaluation: nothing to resume; run the command again\n",
      );
      process.exit(130);
    }
  };
  for (const s of SIGNALS) process.on(s, onSignal);
  try {
    return await work(controller.signal);
  } finally {
    for (const s of SIGNALS) process.off(s, onSignal);
  }
}
