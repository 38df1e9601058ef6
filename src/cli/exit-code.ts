// The exit code a command returns, carried out of commander's action handler to runCli. A module of its
// own so that commands set it without importing the program that loads them.

let code = 0;

/** Commands call this with their exit code (0 ok, 1 regression/threshold, 2 bad input, 3 could not complete). */
export function setExitCode(exitCode: number): void {
  code = exitCode;
}

/** The code the last command set (0 when none did). */
export function commandExitCode(): number {
  return code;
}
