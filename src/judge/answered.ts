// A model call frees its judge's concurrency slot when its answer has arrived, not once that answer is parsed
// and checked: the transport (nodeFetch) says when the answer of the request made with a given abort signal is
// in, and the slot goes to the next call at once, so answers that arrive together release their slots before
// any of them is parsed (design notes, "A call's slot freed when its answer arrives").

const onAnswer = new WeakMap<AbortSignal, () => void>();

/** Runs `release` when the transport reports the answer of the request made with `signal` (at most once). */
export function whenAnswered(signal: AbortSignal, release: () => void): void {
  onAnswer.set(signal, release);
}

/** The answer of the request made with `signal` has arrived in full. */
export function answered(signal: AbortSignal | null | undefined): void {
  if (!signal) return;
  const release = onAnswer.get(signal);
  if (release === undefined) return;
  onAnswer.delete(signal);
  release();
}
