// Rewrites of packages' modules as scripts/bundle-cli.mjs puts them in the command's bundle, kept apart so that a
// test (test/cli/bundle-rewrites.test.ts) can apply them to the installed packages and check what they still do.
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Two packages name a Node module at load that the command does not use before its first judge request, and
 * that Node compiles then, without its code cache (the command's V8 flags turn that off for Node's own
 * modules): commander's node:child_process (for subcommands run as executables, which Dramaturg has none of;
 * with node:dgram, ≈ 2 ms on Node 24) and eventsource-parser's stream class, which extends `TransformStream`
 * (Node's web streams, ≈ 4 ms; the SDK uses it for streamed answers only). In the bundle the first is loaded
 * when a subcommand would be spawned and the second class is made at its first use. A release that changes
 * either line stops the build here, so the rewrite is looked at again rather than silently lost.
 */
export const LAZY_AT_LOAD = [
  {
    file: /[\\/]commander[\\/]lib[\\/]command\.js$/,
    rewrite: (contents) =>
      replaceOnce(
        contents,
        "import childProcess from 'node:child_process';",
        "const childProcess = { spawn: (...args) => (process.getBuiltinModule?.('node:child_process') ?? require('node:child_process')).spawn(...args) };",
      ),
  },
  {
    file: /[\\/]eventsource-parser[\\/]dist[\\/]stream\.js$/,
    rewrite: (contents) => {
      const head = "class EventSourceParserStream extends TransformStream {";
      const start = contents.indexOf(head);
      const end = contents.indexOf("\nexport {");
      if (start < 0 || end < start || contents.indexOf(head, start + 1) >= 0)
        throw new Error(
          "bundle-cli: eventsource-parser's stream.js no longer declares its class as expected",
        );
      const made = contents.slice(start, end);
      return `${contents.slice(0, start)}let EventSourceParserStream$made;
function EventSourceParserStream(options) {
  EventSourceParserStream$made ??= ${made};
  return new EventSourceParserStream$made(options);
}${contents.slice(end)}`;
    },
  },
];

function replaceOnce(contents, from, to) {
  if (contents.split(from).length !== 2) throw new Error(`bundle-cli: expected once: ${from}`);
  return contents.replace(from, to);
}

/** The esbuild plugin that applies {@link LAZY_AT_LOAD} to the packages' modules as they load. */
export const lazyAtLoad = {
  name: "dramaturg-lazy-at-load",
  setup(b) {
    for (const { file, rewrite } of LAZY_AT_LOAD)
      b.onLoad({ filter: file }, async (args) => ({
        contents: rewrite(await readFile(args.path, "utf8")),
        loader: "js",
        resolveDir: dirname(args.path),
      }));
  },
};
