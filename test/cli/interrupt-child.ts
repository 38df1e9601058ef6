// A process whose work never ends, under withInterrupts: the run becomes resumable when a line "open"
// arrives on stdin. Spawned by interrupts.test.ts.
import { withInterrupts } from "../../src/cli/interrupts.ts";

let open!: () => void;
const resumable = new Promise<void>((resolve) => {
  open = resolve;
});
process.stdin.on("data", (data) => {
  if (String(data).includes("open")) open();
});
process.stdout.write("ready\n");
await withInterrupts(() => new Promise<never>(() => {}), { resumable });
