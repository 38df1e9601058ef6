// The "Examples:" block every command appends to its --help.

/** Help text with real examples, appended to a command's --help. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join("\n")}\n`;
}

/** The ensemble demo's arguments: the harness commands' examples run it with the fixture judge. */
export const ENSEMBLE_DEMO_ARGS =
  "examples/ensemble/transcript.json --propositions examples/ensemble/propositions --judge fixtures:examples/ensemble/judge-fixtures.json";
