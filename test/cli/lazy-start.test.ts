import { describe, expect, it } from "vitest";
import { buildProgram, evalProgram, summaryProgram } from "../../src/cli/program.ts";
import { cli } from "./run-cli.ts";

describe("the top-level help without the command modules", () => {
  it("lists the same commands, arguments and descriptions as the full program", async () => {
    expect(summaryProgram().helpInformation()).toBe((await buildProgram()).helpInformation());
  });

  it("dramaturg --help prints what dramaturg help (the full program) prints", async () => {
    const full = await cli(["help"]);
    expect(full.stdout).toMatch(/Exit codes:/);
    expect(await cli(["--help"])).toEqual({ ...full, code: 0 });
  });

  it("a command line that runs eval builds eval alone, with the full program's help for it", async () => {
    const alone = await evalProgram();
    expect(alone.commands.map((c) => c.name())).toEqual(["eval"]);
    const full = (await buildProgram()).commands.find((c) => c.name() === "eval")!;
    expect(alone.commands[0]!.helpInformation()).toBe(full.helpInformation());
  });

  it("dramaturg --version prints the full program's version", async () => {
    expect((await cli(["--version"])).stdout).toBe(`${(await buildProgram()).version()}\n`);
  });
});
