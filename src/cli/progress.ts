// A progress bar on stderr, drawn only when stderr is a terminal (CI logs stay clean).
import type { ProgressListener } from "../engine/index.ts";

export interface Progress {
  update(done: number, total: number): void;
  done(): void;
}

export function createProgress(label: string, enabled = process.stderr.isTTY === true): Progress {
  if (!enabled) return { update() {}, done() {} };
  let last = 0;
  let drawn = false;
  const started = Date.now();
  return {
    update(done, total) {
      const now = Date.now();
      if (done < total && now - last < 80) return;
      last = now;
      const width = 28;
      const ratio = total === 0 ? 1 : done / total;
      const filled = Math.round(ratio * width);
      const elapsed = (now - started) / 1000;
      const eta = done > 0 && done < total ? ` eta ${Math.ceil((elapsed / done) * (total - done))}s` : "";
      process.stderr.write(
        `\r${label} [${"█".repeat(filled)}${"░".repeat(width - filled)}] ${done}/${total} ${elapsed.toFixed(1)}s${eta}   `,
      );
      drawn = true;
    },
    done() {
      if (drawn) process.stderr.write("\r\x1b[2K");
    },
  };
}

/** A progress bar on stderr (when it is a terminal) fed by the engine's progress events. */
export function progressBar(label: string, enabled: boolean): ProgressListener {
  const bar = createProgress(label, enabled && process.stderr.isTTY === true);
  return (event) => {
    if (event.type === "judged") bar.update(event.done, event.total);
    else if (event.type === "finished") bar.done();
  };
}
