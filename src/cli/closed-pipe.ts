// A reader that closed its end (`dramaturg runs | head -1`) ends the command quietly, as a pipe's writer
// should, instead of an unhandled EPIPE with a stack trace.
export function endQuietlyOnClosedPipe(): void {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });
}
