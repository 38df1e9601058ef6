// Benchmark for src/text: n-gram and vocabulary statistics over 100,000 synthetic messages from 10
// agents must take under 2 s. Messages come from a seeded PRNG, so every run measures the same input.
import { seededRandom } from "../src/core/index.ts";
import { fluencyStatistics, vocabularyStatistics } from "../src/text/index.ts";

const MESSAGES = 100_000;
const AGENTS = 10;
const VOCABULARY = 3_000;

/** Synthetic messages by agent: Zipf-distributed pseudo-words, 12–28 per message, with some punctuation. */
export function syntheticChannel(seed = 42): Map<string, string[]> {
  const random = seededRandom(seed);
  const syllables = [
    "ka",
    "lo",
    "mi",
    "ne",
    "ru",
    "sa",
    "te",
    "vo",
    "an",
    "el",
    "is",
    "or",
    "ch",
    "st",
    "ph",
  ];
  const words: string[] = [];
  const seen = new Set<string>();
  while (words.length < VOCABULARY) {
    let word = "";
    const parts = 1 + Math.floor(random() * 4);
    for (let i = 0; i < parts; i++) word += syllables[Math.floor(random() * syllables.length)]!;
    if (random() < 0.02) word += "'s";
    if (!seen.has(word)) {
      seen.add(word);
      words.push(word);
    }
  }
  // Zipf weights 1/rank, sampled by binary search over the cumulative sums.
  const cumulative = new Float64Array(VOCABULARY);
  let total = 0;
  for (let r = 0; r < VOCABULARY; r++) cumulative[r] = total += 1 / (r + 1);
  const pick = (): string => {
    const target = random() * total;
    let lo = 0;
    let hi = VOCABULARY - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return words[lo]!;
  };

  const byAgent = new Map<string, string[]>();
  for (let a = 0; a < AGENTS; a++) byAgent.set(`agent-${a}`, []);
  for (let m = 0; m < MESSAGES; m++) {
    const length = 12 + Math.floor(random() * 17);
    const parts: string[] = [];
    for (let i = 0; i < length; i++) {
      let word = pick();
      if (i === 0) word = word[0]!.toUpperCase() + word.slice(1);
      if (random() < 0.08) word += ",";
      parts.push(word);
    }
    const text = `${parts.join(" ")}${random() < 0.2 ? "?" : "."}`;
    byAgent.get(`agent-${Math.floor(random() * AGENTS)}`)!.push(text);
  }
  return byAgent;
}

/** Times fluency statistics per agent plus vocabulary statistics over the channel. */
export async function benchText(): Promise<{ messages: number; ms: number }> {
  const channel = syntheticChannel();
  const start = performance.now();
  for (const messages of channel.values()) fluencyStatistics(messages);
  vocabularyStatistics(channel);
  const ms = performance.now() - start;
  let messages = 0;
  for (const list of channel.values()) messages += list.length;
  return { messages, ms: Math.round(ms) };
}
