// `npm run demo:drift`: `dramaturg drift` end to end, offline, in seconds. A scripted agent stands behind the
// fake OpenAI-compatible server of src/testing and forgets its instructions one kind after another: the
// language after 4 exchanges, the patterns after 6, the multiple-choice rule after 8, who it is after 10,
// never the facts. It answers each built-in probe with the suite's own good example while it remembers, its
// bad one after (the main conversation gets a plain numbered line). The command is the real one, over HTTP; no key, no
// model. Flags after `--` go to the command (`npm run demo:drift -- --format json`).
//   node --import tsx scripts/demo-drift.ts [drift flags]
import { runCli } from "../src/cli/program.ts";
import { builtinProbes, fillName } from "../src/redteam/index.ts";
import { messageText, startFakeOpenAIServer } from "../src/testing/index.ts";

const PROBES = builtinProbes();
const FORGOTTEN_AFTER: Record<string, number> = {
  language: 4,
  pattern: 6,
  multiple_choice: 8,
  persona: 10,
  memorisation: Number.POSITIVE_INFINITY,
};
const server = await startFakeOpenAIServer({
  respond: (request) => {
    const messages = request.messages.map(messageText);
    const name = /^You are ([^.,]+)[.,]/.exec(messages[0] ?? "")?.[1] ?? "?";
    const exchanges = request.messages.filter((m) => m.role === "assistant").length;
    const probe = PROBES.find((p) => fillName(p.text, name) === messages.at(-1));
    if (!probe) return `(line ${exchanges + 1} of a pleasant chat)`;
    return fillName(
      (exchanges < FORGOTTEN_AFTER[probe.kind]! ? probe.examples!.pass : probe.examples!.fail)[0]!,
      name,
    );
  },
});
try {
  process.exitCode = await runCli([
    "drift",
    "--persona",
    "examples/worlds/office-brainstorm.yml",
    "--agent",
    "jim",
    "--agent",
    "dwight",
    "--target-url",
    server.url,
    "--turns",
    "10",
    "--seeds",
    "2",
    "--concurrency",
    "8",
    "--db",
    "memory://",
    ...process.argv.slice(2),
  ]);
} finally {
  await server.close();
}
process.stderr.write("The agent was scripted (hand-written), not a real LLM's answers.\n");
