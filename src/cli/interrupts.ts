// Ctrl-C and SIGTERM during a long command: the first asks the evaluation to stop (calls in flight get
// a short grace, what was judged is kept, the run is marked interrupted); a second one quits at once,
// which still leaves a resumable run (its verdicts are committed as they arrive).

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * Runs `work` with an AbortSignal that the first SIGINT/SIGTERM aborts; restores the default handling after.
 * `resumable` says whether a run to resume exists yet (an evaluation that judges while its store opens
 * has none until the store is open): the message of a second Ctrl-C says so.
 */
export async function withInterrupts<T>(
  work: (signal: AbortSignal) => Promise<T>,
  { resumable = () => true }: { resumable?: () => boolean } = {},
): Promise<T> {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      process.stderr.write(
        resumable()
          ? "\ndramaturg: stopped at once; `dramaturg eval --resume` completes the run\n"
          : "\ndramaturg: stopped at once, before the store had the evaluation: nothing to resume; run the command again\n",
      );
      process.exit(130);
    }
    process.stderr.write(
      `\ndramaturg: ${name === "SIGINT" ? "Ctrl-C" : name}: finishing the judge calls in flight and keeping what was judged (press Ctrl-C again to quit at once)\n`,
    );
    controller.abort(new Error(`interrupted by ${name}`));
  };
  for (const s of SIGNALS) process.on(s, onSignal);
  try {
    return await work(controller.signal);
  } finally {
    for (const s of SIGNALS) process.off(s, onSignal);
  }
}
