// Ctrl-C and SIGTERM during a long command: the first asks the evaluation to stop (calls in flight get
// a short grace, what was judged is kept, the run is marked interrupted); a second one quits at once,
// which still leaves a resumable run (its verdicts are committed as they arrive).

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/** Runs `work` with an AbortSignal that the first SIGINT/SIGTERM aborts; restores the default handling after. */
export async function withInterrupts<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      process.stderr.write("\ndramaturg: stopped at once; `dramaturg eval --resume` completes the run\n");
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
