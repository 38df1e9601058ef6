// cel-js, the CEL parser and evaluator (a job's assertions, drift checkers, trajectory argument rules), loaded
// at the first expression: importing the library does not pay for its 14 modules, as most programs never
// evaluate one.
import { createRequire } from "node:module";
import type * as CelJs from "@marcbachmann/cel-js";

let loaded: typeof CelJs | undefined;

/** cel-js (an ES module, required synchronously: a job's expressions are checked as it is read). */
export function celJs(): typeof CelJs {
  // The bundled command makes this literal call a bundled require (scripts/bundle-cli.mjs, LAZY_REQUIRE).
  loaded ??= createRequire(import.meta.url)("@marcbachmann/cel-js") as typeof CelJs;
  return loaded;
}
