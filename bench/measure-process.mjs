// Runs a Node script (argv[3], with the arguments after it) in this process and, when the process exits,
// writes its CPU time and peak resident memory (every thread's: getrusage of the whole process) as JSON to
// argv[2]. Usage: node bench/measure-process.mjs USAGE.json SCRIPT [ARGS…]
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [usageFile, script, ...args] = process.argv.slice(2);
process.argv = [process.argv[0], script, ...args];
process.on("exit", () => {
  const usage = process.resourceUsage();
  writeFileSync(
    usageFile,
    JSON.stringify({ cpu_ms: (usage.userCPUTime + usage.systemCPUTime) / 1000, max_rss_kb: usage.maxRSS }),
  );
});
await import(pathToFileURL(script).href);
