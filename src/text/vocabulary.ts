// Vocabulary statistics for a channel: each agent's lexical diversity and favourite words, and how much
// the agents' content vocabularies overlap — supplementary evidence for the convergence (voice) judge.

import { compareCodeUnits } from "../core/index.ts";
import { Lexicon } from "./lexicon.ts";
import { ENGLISH_STOPWORDS } from "./stopwords.ts";
import { MATTR_WINDOW, mattrOfIds } from "./type-token.ts";

export interface WordCount {
  word: string;
  count: number;
}

export interface AgentVocabulary {
  agent: string;
  messages: number;
  tokens: number;
  /** Distinct words, stopwords included. */
  types: number;
  typeTokenRatio: number;
  /** Moving-average type-token ratio over windows of `window` tokens; unlike the raw ratio it does not fall with length. */
  mattr: number;
  /** Distinct content words (not stopwords). */
  contentTypes: number;
  /** Most frequent content words, most frequent first, then alphabetical. */
  topWords: WordCount[];
}

export interface VocabularyPair {
  a: string;
  b: string;
  /** Jaccard of the two agents' sets of content words. */
  jaccard: number;
  /** Cosine of the two agents' content-word frequency vectors. */
  cosine: number;
}

export interface VocabularyStatistics {
  window: number;
  /** One entry per agent, by agent id. */
  agents: AgentVocabulary[];
  /** Every pair of agents (a < b by id), in id order. */
  pairs: VocabularyPair[];
  summary: {
    agents: number;
    /** Means over all pairs; null with fewer than two agents. */
    meanPairwiseJaccard: number | null;
    meanPairwiseCosine: number | null;
  };
}

export interface VocabularyOptions {
  /** Words left out of content vocabularies (lowercase). Default: the built-in English list. */
  stopwords?: Iterable<string>;
  /** How many top content words to list per agent. Default 10. */
  top?: number;
  /** MATTR window in tokens. Default 50. */
  window?: number;
}

/**
 * Vocabulary statistics of the agents of one channel, from each agent's messages in order. Pairwise
 * similarity uses content words only, so that shared function words do not make every pair look alike.
 * An agent with no content words has similarity 0 with every other.
 */
export function vocabularyStatistics(
  messagesByAgent: ReadonlyMap<string, readonly string[]>,
  options: VocabularyOptions = {},
): VocabularyStatistics {
  const { top = 10, window = MATTR_WINDOW } = options;
  const stopwords = options.stopwords === undefined ? ENGLISH_STOPWORDS : toSet(options.stopwords);
  const agentIds = [...messagesByAgent.keys()].sort(compareCodeUnits);

  const lexicon = new Lexicon();
  const streams = agentIds.map((agent) => {
    const stream: number[] = [];
    for (const text of messagesByAgent.get(agent)!) lexicon.tokenIds(text, stream);
    return stream;
  });
  const size = lexicon.size;
  const isStopword = new Uint8Array(size);
  for (let id = 0; id < size; id++) if (stopwords.has(lexicon.word(id))) isStopword[id] = 1;

  const counts = new Int32Array(size);
  const profiles: ContentProfile[] = [];
  const agents = agentIds.map((agent, index): AgentVocabulary => {
    const stream = streams[index]!;
    const touched: number[] = [];
    for (const id of stream) if (counts[id]!++ === 0) touched.push(id);
    const content = Int32Array.from(touched.filter((id) => isStopword[id] === 0)).sort();
    const weights = new Float64Array(content.length);
    let squares = 0;
    for (let i = 0; i < content.length; i++) {
      const c = counts[content[i]!]!;
      weights[i] = c;
      squares += c * c;
    }
    profiles.push({ ids: content, weights, norm: Math.sqrt(squares) });
    const topWords = topContentWords(content, weights, top, lexicon);
    for (const id of touched) counts[id] = 0;
    return {
      agent,
      messages: messagesByAgent.get(agent)!.length,
      tokens: stream.length,
      types: touched.length,
      typeTokenRatio: stream.length === 0 ? 0 : touched.length / stream.length,
      mattr: mattrOfIds(stream, size, window),
      contentTypes: content.length,
      topWords,
    };
  });

  const pairs: VocabularyPair[] = [];
  for (let i = 0; i < agentIds.length; i++) {
    for (let j = i + 1; j < agentIds.length; j++) {
      pairs.push({ a: agentIds[i]!, b: agentIds[j]!, ...compareProfiles(profiles[i]!, profiles[j]!) });
    }
  }
  return {
    window,
    agents,
    pairs,
    summary: {
      agents: agents.length,
      meanPairwiseJaccard: meanOf(pairs, (p) => p.jaccard),
      meanPairwiseCosine: meanOf(pairs, (p) => p.cosine),
    },
  };
}

/** An agent's content words as sorted ids with their counts, for merge-joins between agents. */
interface ContentProfile {
  ids: Int32Array;
  weights: Float64Array;
  norm: number;
}

function compareProfiles(x: ContentProfile, y: ContentProfile): { jaccard: number; cosine: number } {
  let i = 0;
  let j = 0;
  let shared = 0;
  let dot = 0;
  while (i < x.ids.length && j < y.ids.length) {
    const a = x.ids[i]!;
    const b = y.ids[j]!;
    if (a === b) {
      shared++;
      dot += x.weights[i]! * y.weights[j]!;
      i++;
      j++;
    } else if (a < b) i++;
    else j++;
  }
  const union = x.ids.length + y.ids.length - shared;
  return {
    jaccard: union === 0 ? 0 : shared / union,
    cosine: x.norm === 0 || y.norm === 0 ? 0 : Math.min(1, dot / (x.norm * y.norm)),
  };
}

function topContentWords(ids: Int32Array, weights: Float64Array, top: number, lexicon: Lexicon): WordCount[] {
  if (top <= 0) return [];
  const order = Array.from(ids.keys());
  // Sort by count only, then settle ties alphabetically among those that can reach the list.
  order.sort((p, q) => weights[q]! - weights[p]!);
  if (order.length > top) {
    const cutoff = weights[order[top - 1]!]!;
    let end = top;
    while (end < order.length && weights[order[end]!]! === cutoff) end++;
    order.length = end;
  }
  return order
    .map((i) => ({ word: lexicon.word(ids[i]!), count: weights[i]! }))
    .sort((p, q) => q.count - p.count || compareCodeUnits(p.word, q.word))
    .slice(0, top);
}

function toSet(words: Iterable<string>): ReadonlySet<string> {
  return new Set(Array.from(words, (w) => w.toLowerCase()));
}

function meanOf<T>(items: readonly T[], value: (item: T) => number): number | null {
  if (items.length === 0) return null;
  let total = 0;
  for (const item of items) total += value(item);
  return total / items.length;
}
