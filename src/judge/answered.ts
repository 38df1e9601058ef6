// A model call holds one of its judge's concurrency slots while it is on the wire, not while its request is
// built or its answer parsed and checked. The transport (nodeFetch) takes the slot of the request made with a
// given abort signal when that request is built and ready to go (a call waits there with its request made),
// and says when its answer has arrived, and the slot goes to the next call at once. Answers that arrive
// together then release their slots before any of them is parsed, and each freed slot sends a request that
// is already made (design notes, "A call's slot freed when its answer arrives", "The slot taken at the wire").

const onAnswer = new WeakMap<AbortSignal, () => void>();
const onSend = new WeakMap<AbortSignal, () => Promise<void>>();
const gatedModels = new WeakSet<object>();

/**
 * Marks a model whose every request goes through nodeFetch with the abort signal its call was given: its
 * judge may then leave taking the call's slot to the transport ({@link whenSending}).
 */
export function gateAtTransport<T extends object>(model: T): T {
  gatedModels.add(model);
  return model;
}

/** Whether `model` was marked by {@link gateAtTransport}. */
export function isGatedAtTransport(model: unknown): boolean {
  return typeof model === "object" && model !== null && gatedModels.has(model);
}

/**
 * Runs `take` (which resolves once the call has its slot) when the transport is about to send the request
 * made with `signal`, its body built (at most once).
 */
export function whenSending(signal: AbortSignal, take: () => Promise<void>): void {
  onSend.set(signal, take);
}

/** What the request made with `signal` waits for before it is sent: its call's slot; undefined when nothing. */
export function beforeSending(signal: AbortSignal | null | undefined): Promise<void> | undefined {
  if (!signal) return undefined;
  const take = onSend.get(signal);
  if (take === undefined) return undefined;
  onSend.delete(signal);
  return take();
}

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
