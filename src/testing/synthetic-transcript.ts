// Deterministic synthetic transcripts for benchmarks and long-running tests (resume after a kill).
import { seededRandom, TRANSCRIPT_FORMAT, type Transcript } from "../core/index.ts";

const WORDS =
  "harbour tide ferry rope engine storm gull lantern chart compass anchor deck galley captain cargo fog bell shore pier net mast sail keel hull wave reef island lighthouse signal radio weather coffee bread soup plan fix wait roof fence stove schedule ticket queue passenger late early quiet loud careful bold honest".split(
    " ",
  );

export interface SyntheticOptions {
  messages: number;
  agents?: number;
  channels?: number;
  seed?: number;
  /** Words per message (default 12–24). */
  words?: [number, number];
}

/** A transcript of `messages` agent messages spread over `agents` agents and `channels` channels. */
export function syntheticTranscript({
  messages,
  agents = 4,
  channels = 2,
  seed = 1,
  words = [12, 24],
}: SyntheticOptions): Transcript {
  const random = seededRandom(seed);
  const agentList = Array.from({ length: agents }, (_, i) => ({
    id: `agent-${i + 1}`,
    name: `Agent ${i + 1}`,
    persona: { occupation: WORDS[i % WORDS.length]!, style: i % 2 ? "terse" : "chatty" },
  }));
  const start = Date.parse("2026-01-01T00:00:00Z");
  const list = Array.from({ length: messages }, (_, i) => {
    const length = words[0] + Math.floor(random() * (words[1] - words[0] + 1));
    const text = Array.from({ length }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(" ");
    return {
      id: `m${i + 1}`,
      sender: agentList[i % agents]!.id,
      channel: `channel-${(Math.floor(i / 7) % channels) + 1}`,
      text: `${text[0]!.toUpperCase()}${text.slice(1)}.`,
      at: new Date(start + i * 60_000).toISOString(),
    };
  });
  return { format: TRANSCRIPT_FORMAT, agents: agentList, messages: list };
}
