// The bundle's rewrites of packages' modules (scripts/bundle-rewrites.mjs), applied to the installed packages as
// scripts/bundle-cli.mjs applies them: what each module is used for still works.
import { createRequire } from "node:module";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a build script in plain JavaScript, without declarations
import { LAZY_AT_LOAD, lazyAtLoad } from "../../scripts/bundle-rewrites.mjs";

/** `source` bundled with the rewrites, as CommonJS (the bundle's format), and required. */
async function bundled(source: string): Promise<unknown> {
  const out = await build({
    stdin: { contents: source, resolveDir: process.cwd() },
    bundle: true,
    format: "cjs",
    platform: "node",
    write: false,
    logLevel: "silent",
    plugins: [lazyAtLoad],
  });
  const code = out.outputFiles[0]!.text;
  expect(code).not.toMatch(/^import /m);
  const module = { exports: {} as Record<string, unknown> };
  new Function("module", "exports", "require", code)(module, module.exports, createRequire(import.meta.url));
  return { ...module.exports, code };
}

describe("the bundle's rewrites of packages", () => {
  it("eventsource-parser's stream, made at first use, still parses an event stream and is a TransformStream", async () => {
    const { EventSourceParserStream } = (await bundled(
      'export { EventSourceParserStream } from "eventsource-parser/stream";',
    )) as { EventSourceParserStream: new () => TransformStream<string, { event?: string; data: string }> };
    const events: string[] = [];
    const stream = new ReadableStream<string>({
      start(controller) {
        controller.enqueue("data: one\n\n");
        controller.enqueue("event: done\ndata: two\n\n");
        controller.close();
      },
    }).pipeThrough(new EventSourceParserStream());
    for await (const event of stream) events.push(`${event.event ?? "-"}:${event.data}`);
    expect(events).toEqual(["-:one", "done:two"]);
    expect(new EventSourceParserStream()).toBeInstanceOf(TransformStream);
  });

  it("commander, with node:child_process loaded only to spawn, still parses a command line", async () => {
    const { Command, code } = (await bundled('export { Command } from "commander";')) as {
      code: string;
      Command: new () => {
        option(flags: string): unknown;
        argument(name: string): unknown;
        parse(argv: string[], options: { from: "user" }): { opts(): unknown; args: string[] };
      };
    };
    // Named once, inside the function that spawns.
    expect(code.match(/child_process/g)).toHaveLength(2);
    expect(code).toMatch(
      /spawn: \(\.\.\.args\) => \(\S*getBuiltinModule\?\.\("node:child_process"\) \?\? require\("node:child_process"\)\)/,
    );
    const program = new Command();
    program.option("--db <url>");
    program.argument("<file>");
    const parsed = program.parse(["t.json", "--db", "memory://"], { from: "user" });
    expect(parsed.opts()).toEqual({ db: "memory://" });
    expect(parsed.args).toEqual(["t.json"]);
  });

  it("a package release that changes a rewritten line stops the build", () => {
    for (const { rewrite } of LAZY_AT_LOAD as { rewrite: (s: string) => string }[])
      expect(() => rewrite("export {};\n")).toThrow(/bundle-cli/);
  });
});
