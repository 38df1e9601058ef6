// A model call holds one of its judge's concurrency slots while it is on the wire, not while its answer is
// parsed and checked: the transport (nodeFetch) says when the answer of the request made with a given abort
// signal has arrived, and the slot goes to the next call at once. Answers that arrive together then release
// their slots before any of them is parsed, so the next requests go out without queueing behind that work
// (design notes, "A call's slot freed when its answer arrives").

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
