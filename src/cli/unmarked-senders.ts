// The one warning about transcript senders that are neither agents nor marked outside speakers.
import { type Transcript, unmarkedSenders } from "../core/index.ts";

/**
 * Says once, on stderr, which senders are neither agent ids nor marked as outside speakers (`role:name`,
 * `user`): allowed, as a user may speak, but perhaps a mistake (docs/personas.md).
 */
export function warnOfUnmarkedSenders(transcript: Transcript): void {
  const senders = unmarkedSenders(transcript);
  if (senders.length === 0) return;
  const shown = senders.slice(0, 5).map((s) => `"${s}"`);
  if (senders.length > 5) shown.push(`${senders.length - 5} more`);
  const which =
    senders.length === 1
      ? `sender ${shown[0]} is not an agent id`
      : `senders ${shown.join(", ")} are not agent ids`;
  process.stderr.write(
    `warning: ${which}: read as speakers outside the ensemble (mark them role:name, e.g. user:${senders[0]}, to say so)\n`,
  );
}
