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
// "ready" only once the signal handlers are in place: a Ctrl-C before then would end the process.
const running = withInterrupts(() => new Promise<never>(() => {}), { resumable });
process.stdout.write("ready\n");
await running;
