// N-gram repetition across one agent's messages: the supplementary evidence for the fluency judge,
// and (over the last few messages) the trigger and phrase list for repetition suppression.

import { compareCodeUnits } from "../core/index.ts";
import { Lexicon } from "./lexicon.ts";
import { indexNgrams, type NgramTable, ngramText } from "./ngram-index.ts";
import { assertOrder } from "./ngrams.ts";
import { MATTR_WINDOW, mattrOfIds } from "./type-token.ts";

/** Repetition of one n-gram order across an agent's messages. */
export interface NgramRepetition {
  n: number;
  /** All n-gram occurrences. */
  occurrences: number;
  /** Distinct n-grams. */
  distinct: number;
  /** Distinct n-grams that occur in at least two messages. */
  repeated: number;
  /** Share of occurrences whose n-gram also occurs in another message (0 when there are none). */
  overlapRatio: number;
}

/** An n-gram found in more than one message. */
export interface RepeatedNgram {
  ngram: string;
  n: number;
  /** Number of messages it occurs in. */
  messages: number;
}

export interface FluencyStatistics {
  messages: number;
  tokens: number;
  types: number;
  typeTokenRatio: number;
  /** Moving-average type-token ratio over windows of `window` tokens (length-robust). */
  mattr: number;
  window: number;
  /** One entry per requested order, ascending. */
  repeatedNgrams: NgramRepetition[];
  /** Most widely repeated n-grams, most messages first (see `fluencyStatistics`). */
  topRepeated: RepeatedNgram[];
  /**
   * Mean Jaccard of the trigram sets of consecutive messages, over the pairs where either message has
   * a trigram; null when there is no such pair.
   */
  meanPairwiseOverlap: number | null;
}

export interface FluencyOptions {
  /** N-gram orders to measure, each 2 or more. Default [2, 3]. */
  n?: number | readonly number[];
  /** How many repeated n-grams to list in `topRepeated`. Default 5. */
  top?: number;
  /** MATTR window in tokens. Default 50. */
  window?: number;
}

/** Consecutive-message overlap is always measured on trigrams. */
const PAIR_ORDER = 3;

/**
 * N-gram repetition statistics for one agent's messages, in the order they were sent.
 *
 * `topRepeated` ranks n-grams of the requested orders by the number of messages they occur in, then
 * longer first, then alphabetically; an n-gram inside an already listed longer one that occurs in as
 * many messages is left out, since it says nothing more ("i think" under "i think that").
 */
export function fluencyStatistics(
  messages: readonly string[],
  options: FluencyOptions = {},
): FluencyStatistics {
  const { top = 5, window = MATTR_WINDOW } = options;
  const orders = normaliseOrders(options.n ?? [2, 3]);
  const lexicon = new Lexicon();
  // All tokens in one stream; message m is stream[ends[m-1] .. ends[m]).
  const ids: number[] = [];
  const ends = new Int32Array(messages.length);
  messages.forEach((text, m) => {
    lexicon.tokenIds(text, ids);
    ends[m] = ids.length;
  });
  const stream = Int32Array.from(ids);
  const tokens = stream.length;

  const maxN = Math.max(PAIR_ORDER, ...orders);
  const { tables, pairOverlaps } = indexNgrams(stream, ends, maxN, PAIR_ORDER);
  const repeatedNgrams = orders.map((n) => repetitionOf(tables[n]!));

  return {
    messages: messages.length,
    tokens,
    types: lexicon.size,
    typeTokenRatio: tokens === 0 ? 0 : lexicon.size / tokens,
    mattr: mattrOfIds(stream, lexicon.size, window),
    window,
    repeatedNgrams,
    topRepeated: topRepeatedNgrams(tables, orders, top, lexicon),
    meanPairwiseOverlap: pairOverlaps.length === 0 ? null : sum(pairOverlaps) / pairOverlaps.length,
  };
}

export interface RecentOverlap {
  /** Messages looked at (at most `last`). */
  messages: number;
  n: number;
  /** N-gram occurrences in those messages. */
  occurrences: number;
  /** Share of occurrences whose n-gram also occurs in another of those messages. */
  overlapRatio: number;
  /** Every n-gram occurring in two or more of those messages: most messages first, then alphabetical. */
  repeated: RepeatedNgram[];
}

export interface RecentOverlapOptions {
  /** How many of the most recent messages to look at. Default 5. */
  last?: number;
  /** N-gram order, 2 or more. Default 3. */
  n?: number;
}

/**
 * N-gram overlap among an agent's last few messages (oldest first in `messages`): repetition
 * suppression compares `overlapRatio` with its threshold and asks the agent to avoid `repeated`.
 */
export function recentOverlap(
  messages: readonly string[],
  options: RecentOverlapOptions = {},
): RecentOverlap {
  const { last = 5, n = 3 } = options;
  if (!Number.isInteger(last) || last < 0)
    throw new RangeError(`last must be a non-negative integer, got ${last}`);
  const recent = last === 0 ? [] : messages.slice(-last);
  const stats = fluencyStatistics(recent, { n, top: Number.POSITIVE_INFINITY });
  const repetition = stats.repeatedNgrams[0]!;
  return {
    messages: recent.length,
    n,
    occurrences: repetition.occurrences,
    overlapRatio: repetition.overlapRatio,
    repeated: stats.topRepeated,
  };
}

function normaliseOrders(n: number | readonly number[]): number[] {
  const list = typeof n === "number" ? [n] : [...n];
  for (const order of list) {
    assertOrder(order);
    if (order < 2) throw new RangeError(`repetition needs n-grams of order 2 or more, got ${order}`);
  }
  return [...new Set(list)].sort((a, b) => a - b);
}

function repetitionOf(table: NgramTable): NgramRepetition {
  return {
    n: table.n,
    occurrences: table.total,
    distinct: table.distinct,
    repeated: table.repeatedCount(),
    overlapRatio: table.total === 0 ? 0 : table.sharedOccurrences() / table.total,
  };
}

interface Candidate {
  n: number;
  id: number;
  messages: number;
}

function topRepeatedNgrams(
  tables: readonly NgramTable[],
  orders: readonly number[],
  top: number,
  lexicon: Lexicon,
): RepeatedNgram[] {
  if (top <= 0) return [];
  // Only n-grams in many messages can reach the list: rank those first, and widen to all repeated
  // n-grams only if dropping contained ones leaves the list short.
  const floor = messageCountFloor(tables, orders, top * 8);
  const chosen = chooseTop(tables, orders, top, lexicon, floor);
  return chosen.length < top && floor > 2 ? chooseTop(tables, orders, top, lexicon, 2) : chosen;
}

/** The highest message count such that at least `wanted` repeated n-grams reach it (at least 2). */
function messageCountFloor(tables: readonly NgramTable[], orders: readonly number[], wanted: number): number {
  const histogram: number[] = [];
  for (const n of orders) {
    tables[n]!.forEachInMessages(3, (_, count) => {
      histogram[count] = (histogram[count] ?? 0) + 1;
    });
  }
  let reached = 0;
  for (let count = histogram.length - 1; count > 2; count--) {
    reached += histogram[count] ?? 0;
    if (reached >= wanted) return count;
  }
  return 2;
}

function chooseTop(
  tables: readonly NgramTable[],
  orders: readonly number[],
  top: number,
  lexicon: Lexicon,
  floor: number,
): RepeatedNgram[] {
  const candidates: Candidate[] = [];
  for (const n of orders) {
    tables[n]!.forEachInMessages(floor, (id, messages) => {
      candidates.push({ n, id, messages });
    });
  }
  // Rank by numbers first; build n-gram strings only for the groups that reach the output.
  candidates.sort((a, b) => b.messages - a.messages || b.n - a.n);
  const chosen: RepeatedNgram[] = [];
  for (let start = 0; start < candidates.length && chosen.length < top; ) {
    const head = candidates[start]!;
    let end = start;
    while (
      end < candidates.length &&
      candidates[end]!.messages === head.messages &&
      candidates[end]!.n === head.n
    )
      end++;
    const group = candidates
      .slice(start, end)
      .map((c) => ngramText(tables, c.n, c.id, lexicon))
      .sort(compareCodeUnits);
    for (const ngram of group) {
      if (chosen.length >= top) break;
      if (chosen.some((c) => c.messages === head.messages && containsWords(c.ngram, ngram))) continue;
      chosen.push({ ngram, n: head.n, messages: head.messages });
    }
    start = end;
  }
  return chosen;
}

/** Whether `inner` occurs in `outer` at word boundaries. */
function containsWords(outer: string, inner: string): boolean {
  return ` ${outer} `.includes(` ${inner} `);
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}
