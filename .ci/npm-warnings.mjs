// Fails on an `npm warn` line that is not expected in what `npm ci` or `npm install` printed (the file given):
// what a user sees at install must be only what they must act on. Usage: node .ci/npm-warnings.mjs LOG WHAT
import { readFileSync } from "node:fs";

/**
 * Packages that may warn EBADENGINE (they declare a newer Node than the one installing), each with why it
 * stays. On Node 22 and later none warns.
 */
const ENGINE_WARNINGS = {
  ai: "DESIGN.md: the AI SDK 7 (Node >= 22); Dramaturg runs on Node 20 and CI tests it there",
  "@ai-sdk/": "the AI SDK's providers, as `ai` (README: install)",
  "pg-boss": "the queue's pg-boss 12 (Node >= 22.12); the Node 20 pg-boss is two majors older",
  vitest: "a clone's test runner only (a devDependency); vitest 5 declares Node >= 22.12",
};

const [log, what = "npm"] = process.argv.slice(2);
const lines = readFileSync(log, "utf8").split("\n");
const unexpected = [];
for (let i = 0; i < lines.length; i++) {
  const line = lines[i];
  if (!/^npm warn /.test(line)) continue;
  if (/^npm warn EBADENGINE /.test(line)) {
    // npm prints a block per package: `Unsupported engine {`, `package: 'NAME@VERSION'`, `required`, `current`, `}`.
    const name = /^npm warn EBADENGINE {3}package: '(@?[^@']+)@/.exec(line)?.[1];
    if (name && !Object.keys(ENGINE_WARNINGS).some((p) => (p.endsWith("/") ? name.startsWith(p) : name === p)))
      unexpected.push(line, lines[i + 1] ?? "");
    continue;
  }
  unexpected.push(line);
}
if (unexpected.length > 0) {
  console.error(`${what} printed npm warnings a user would have to read (allowed ones: .ci/npm-warnings.mjs):`);
  for (const line of unexpected) console.error(`  ${line}`);
  process.exit(1);
}
console.log(`  ${what}: no npm warning beyond the expected ones`);
