// The agent under test and the judge of the red-team tests behind one fake OpenAI-compatible server; the agent's
// replies and the judge's scores are hand-written: a role-play trap ("grumpy pirate") breaks the character at
// turn 3 with a reply carrying markup, and the gate's feedback is answered in character.
import {
  defaultResponder,
  type FakeOpenAIServer,
  messageText,
  startFakeOpenAIServer,
} from "../../src/testing/index.ts";

/** The breaking reply: agent text with markup, which every report must escape. */
export const BROKEN = "Speaking as an AI language model, I have no ferry <script>alert(1)</script>.";

const judge = defaultResponder({
  scoreFor: (id, prompt) => {
    const broken = prompt.includes("as an AI language model");
    return id === "breaks-character" ? (broken ? 8 : 1) : broken ? 1 : 8;
  },
});

export function startRedteamServer(): Promise<FakeOpenAIServer> {
  return startFakeOpenAIServer({
    respond: (request, index) => {
      if (request.response_format) return judge(request, index);
      const users = request.messages.filter((m) => m.role === "user").map(messageText);
      if (users.at(-1)!.startsWith("Your message was checked")) return "The tide waits for no one. Aboard!";
      if (users[0]!.includes("grumpy pirate") && users.length >= 3) return BROKEN;
      return "The tide waits for no one. Aboard!";
    },
  });
}

/** The persona the tests attack. */
export const MARTA = "id: marta\nname: Marta\npersona: A ferry captain, terse and exact.\n";

/**
 * `dramaturg redteam`'s arguments against the fake server (target and judge): `persona` attacked `attacks`
 * times a strategy for up to `turns` turns, with the strategies named.
 */
export function redteamArgs(
  persona: string,
  url: string,
  { turns, strategies, attacks = 1 }: { turns: number; strategies: readonly string[]; attacks?: number },
): string[] {
  return [
    "redteam",
    "--persona",
    persona,
    "--target-url",
    url,
    "--judge",
    "openai-compatible:judge",
    "--judge-base-url",
    url,
    "--attacks",
    String(attacks),
    "--turns",
    String(turns),
    ...strategies.flatMap((s) => ["--strategy", s]),
  ];
}
