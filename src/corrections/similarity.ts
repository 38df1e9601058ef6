// The gate's algorithmic checks, no LLM: how similar a tentative message is to the agent's recent ones
// (word-token Jaccard), and how much the recent messages repeat each other (n-gram overlap).
import {
  distinctSorted,
  type HashedWords,
  hashedWords,
  ngramHashes,
  type RepeatedNgram,
  sortedJaccard,
  wordHashSet,
} from "../text/index.ts";

/** How many of the agent's most recent messages both checks look at (the seed's "last 5"). */
export const RECENT_MESSAGES = 5;

/**
 * The highest word-token Jaccard similarity between `text` and each of `recent` (0 when there are
 * none). Words, not characters: TinyTroupe's character-multiset Jaccard scores unrelated English
 * sentences around 0.5, too close to its 0.6 threshold to tell a repeat from a new thought (see
 * docs/design/corrections.md for the measured distributions).
 */
export function actionSimilarity(text: string, recent: readonly string[]): number {
  if (recent.length === 0) return 0;
  const words = wordHashSet(text);
  let max = 0;
  for (const other of recent) {
    const similarity = sortedJaccard(words, cached(other).words);
    if (similarity > max) max = similarity;
    if (max === 1) break;
  }
  return max;
}

export interface RepetitionCheckOptions {
  /** Overlap above which the agent is told to stop repeating itself. Default 0.3 (the seed's). */
  threshold?: number;
  /** N-gram order. Default 3. */
  n?: number;
  /** How many of the most recent messages to look at. Default 5. */
  last?: number;
  /** How many repeated phrases to list at most. Default 10. */
  maxPhrases?: number;
}

export interface RepetitionCheck {
  /** Share of the recent messages' n-gram occurrences that also occur in another recent message. */
  overlap: number;
  /** Whether `overlap` is above the threshold. */
  repetitive: boolean;
  /** The n-grams found in two or more recent messages, most widespread first. */
  repeated: RepeatedNgram[];
  /** Text to add to the agent's prompt before it acts (its recent messages and the phrases to avoid), when repetitive. */
  injection: string | null;
}

/**
 * Repetition suppression's trigger: n-gram overlap among the agent's last messages (oldest first). Above
 * the threshold, `injection` quotes those messages and lists the phrases to avoid; no LLM call.
 */
export function repetitionCheck(
  recent: readonly string[],
  options: RepetitionCheckOptions = {},
): RepetitionCheck {
  const { threshold = 0.3, n = 3, last = RECENT_MESSAGES, maxPhrases = 10 } = options;
  if (!Number.isInteger(n) || n < 2)
    throw new RangeError(`repetition needs n-grams of order 2 or more, got ${n}`);
  const window = last > 0 ? recent.slice(-last) : [];
  const { overlap, repeated } = ngramOverlap(
    window.map((text) => ngramsOf(text, n)),
    n,
  );
  const repetitive = overlap > threshold;
  return {
    overlap,
    repetitive,
    repeated,
    injection: repetitive ? repetitionInjection(window, repeated.slice(0, maxPhrases)) : null,
  };
}

/** A message's n-grams: each occurrence's hash, the distinct hashes ascending, and where each first occurs. */
interface MessageNgrams {
  words: HashedWords;
  n: number;
  /** For each occurrence, the index of its hash in `distinct`. */
  occurrence: Int32Array;
  distinct: Uint32Array;
  /** For each distinct hash, the position of its first occurrence. */
  firstAt: Int32Array;
  /** The words of each distinct n-gram, made when first asked: the window is checked again every turn. */
  texts: (string | undefined)[];
}

function gramText(m: MessageNgrams, d: number): string {
  let text = m.texts[d];
  if (text === undefined) {
    const at = m.firstAt[d]!;
    text = m.texts[d] = m.words.tokens.slice(at, at + m.n).join(" ");
  }
  return text;
}

/**
 * The share of n-gram occurrences whose n-gram also occurs in another message (the measure of the text
 * module's `recentOverlap`), and those n-grams, most widespread first, then alphabetical. Messages are
 * compared pairwise on sorted hashes; a hash match is confirmed on the words, so the result is exact.
 */
function ngramOverlap(
  messages: readonly MessageNgrams[],
  n: number,
): { overlap: number; repeated: RepeatedNgram[] } {
  // others[i][d]: how many other messages contain message i's distinct n-gram d.
  const others = messages.map((m) => new Uint32Array(m.distinct.length));
  for (let i = 0; i < messages.length; i++)
    for (let j = i + 1; j < messages.length; j++) {
      const a = messages[i]!;
      const b = messages[j]!;
      let x = 0;
      let y = 0;
      while (x < a.distinct.length && y < b.distinct.length) {
        const p = a.distinct[x]!;
        const q = b.distinct[y]!;
        if (p < q) x++;
        else if (p > q) y++;
        else {
          if (gramText(a, x) === gramText(b, y)) {
            others[i]![x]!++;
            others[j]![y]!++;
          }
          x++;
          y++;
        }
      }
    }
  let occurrences = 0;
  let shared = 0;
  const repeated = new Map<string, number>();
  messages.forEach((m, i) => {
    const counts = others[i]!;
    occurrences += m.occurrence.length;
    for (const d of m.occurrence) if (counts[d]! > 0) shared++;
    for (let d = 0; d < counts.length; d++) if (counts[d]! > 0) repeated.set(gramText(m, d), counts[d]! + 1);
  });
  const list = [...repeated].map(([ngram, count]): RepeatedNgram => ({ ngram, n, messages: count }));
  list.sort((a, b) => b.messages - a.messages || (a.ngram < b.ngram ? -1 : a.ngram > b.ngram ? 1 : 0));
  return { overlap: occurrences === 0 ? 0 : shared / occurrences, repeated: list };
}

// The recent messages are checked again at every turn (the window slides by one message), so what is
// computed from each is kept for the last few dozen texts seen.
const CACHE_SIZE = 64;

interface CachedText {
  hashed: HashedWords;
  /** Distinct word hashes, ascending. */
  words: Uint32Array;
  ngrams: Map<number, MessageNgrams>;
}

const cache = new Map<string, CachedText>();

function cached(text: string): CachedText {
  let entry = cache.get(text);
  if (entry === undefined) {
    const hashed = hashedWords(text);
    entry = { hashed, words: distinctSorted(hashed.hashes), ngrams: new Map() };
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(text, entry);
  }
  return entry;
}

function ngramsOf(text: string, n: number): MessageNgrams {
  const entry = cached(text);
  let grams = entry.ngrams.get(n);
  if (grams === undefined) {
    const hashes = ngramHashes(entry.hashed.hashes, n);
    const order = Array.from(hashes.keys()).sort((a, b) => hashes[a]! - hashes[b]! || a - b);
    const occurrence = new Int32Array(hashes.length);
    const distinct: number[] = [];
    const firstAt: number[] = [];
    for (const at of order) {
      if (distinct.length === 0 || distinct[distinct.length - 1] !== hashes[at]) {
        distinct.push(hashes[at]!);
        firstAt.push(at);
      }
      occurrence[at] = distinct.length - 1;
    }
    grams = {
      words: entry.hashed,
      n,
      occurrence,
      distinct: Uint32Array.from(distinct),
      firstAt: Int32Array.from(firstAt),
      texts: new Array(distinct.length),
    };
    entry.ngrams.set(n, grams);
  }
  return grams;
}

function repetitionInjection(recent: readonly string[], phrases: readonly RepeatedNgram[]): string {
  const quoted = recent.map((text, i) => `${i + 1}. ${text.replace(/\s+/g, " ").trim()}`).join("\n");
  const avoid = phrases.map((p) => `- "${p.ngram}"`).join("\n");
  return [
    "Your last messages repeat one another:",
    quoted,
    "",
    "In your next message, do not use these phrases again:",
    avoid,
    "Say something you have not said yet, in words you have not used yet.",
  ].join("\n");
}
