// Counts n-grams across an agent's messages with numeric keys: an n-gram's id is interned from
// (id of its first n-1 tokens, id of its last token), so no n-gram string is built unless reported.
import type { Lexicon } from "./lexicon.ts";

const MIN_CAPACITY = 1024;
/** Tables are sized for the expected n-grams up to this many up front, then double as needed. */
const MAX_INITIAL_CAPACITY = 2 ** 20;

/** Fields of one hash slot: an n-gram's key, and the counter every occurrence reads. */
const ID = 0; // id + 1, 0 = empty
const PREFIX = 1; // id of the first n-1 tokens (a token id when n = 2)
const LAST = 2; // id of the last token
const LAST_MESSAGE = 3; // last message it was seen in
const STRIDE = 4;

/**
 * Statistics of one n-gram order over a sequence of messages: an open-addressing hash table on typed
 * arrays, the key beside the id in each slot so a probe reads one place in memory. (A JavaScript Map
 * keyed by numbers above 2^31 allocates per key and was several times slower.)
 */
export class NgramTable {
  readonly n: number;
  /** Number of distinct n-grams; ids are 0 … distinct-1 in order of first occurrence. */
  distinct = 0;
  /** All occurrences of all n-grams of this order. */
  total = 0;
  /** After `add`: the message the n-gram was last seen in before this occurrence, or -1 if new. */
  seenIn = -1;
  /** Slots of STRIDE numbers, kept at most half full. */
  #slots: Int32Array;
  #mask: number;
  /** Offset in #slots of each id's slot. */
  #slotOf: Int32Array;
  /** Per id: occurrences, then the number of messages it occurs in. */
  #counts: Int32Array;

  /** `expected`: how many occurrences are coming, a bound on the distinct n-grams. */
  constructor(n: number, expected = 0) {
    this.n = n;
    let capacity = MIN_CAPACITY;
    while (capacity < expected && capacity < MAX_INITIAL_CAPACITY) capacity *= 2;
    this.#slots = new Int32Array(capacity * 2 * STRIDE);
    this.#mask = capacity * 2 - 1;
    this.#slotOf = new Int32Array(capacity);
    this.#counts = new Int32Array(capacity * 2);
  }

  /**
   * Records one occurrence in message `message` (messages must come in increasing order) and
   * returns the n-gram's id.
   */
  add(prefix: number, last: number, message: number): number {
    this.total++;
    const slots = this.#slots;
    const mask = this.#mask;
    let slot = hash(prefix, last) & mask;
    for (;;) {
      const at = slot * STRIDE;
      const entry = slots[at]!;
      if (entry === 0) break;
      if (slots[at + PREFIX] === prefix && slots[at + LAST] === last) {
        const id = entry - 1;
        this.#counts[id * 2]!++;
        const seenIn = slots[at + LAST_MESSAGE]!;
        this.seenIn = seenIn;
        if (seenIn !== message) {
          this.#counts[id * 2 + 1]!++;
          slots[at + LAST_MESSAGE] = message;
        }
        return id;
      }
      slot = (slot + 1) & mask;
    }
    this.seenIn = -1;
    const id = this.distinct++;
    const at = slot * STRIDE;
    slots[at + ID] = id + 1;
    slots[at + PREFIX] = prefix;
    slots[at + LAST] = last;
    slots[at + LAST_MESSAGE] = message;
    if (id === this.#slotOf.length) this.#grow();
    else this.#slotOf[id] = at;
    this.#counts[id * 2] = 1;
    this.#counts[id * 2 + 1] = 1;
    return id;
  }

  /** The id of an n-gram's first n-1 tokens (a token id when n = 2). */
  prefixOf(id: number): number {
    return this.#slots[this.#slotOf[id]! + PREFIX]!;
  }

  /** The token id of an n-gram's last token. */
  lastOf(id: number): number {
    return this.#slots[this.#slotOf[id]! + LAST]!;
  }

  /** Calls `visit` for each n-gram occurring in at least `minMessages` messages, in no set order. */
  forEachInMessages(minMessages: number, visit: (id: number, messages: number) => void): void {
    const counts = this.#counts;
    for (let id = 0; id < this.distinct; id++) {
      const messages = counts[id * 2 + 1]!;
      if (messages >= minMessages) visit(id, messages);
    }
  }

  /** Occurrences of n-grams that occur in at least two messages. */
  sharedOccurrences(): number {
    let shared = 0;
    const counts = this.#counts;
    for (let id = 0; id < this.distinct; id++) if (counts[id * 2 + 1]! >= 2) shared += counts[id * 2]!;
    return shared;
  }

  /** Number of distinct n-grams that occur in at least two messages. */
  repeatedCount(): number {
    let repeated = 0;
    const counts = this.#counts;
    for (let id = 0; id < this.distinct; id++) if (counts[id * 2 + 1]! >= 2) repeated++;
    return repeated;
  }

  /** Doubles the table (placed, new id included) and rehashes every n-gram into it. */
  #grow(): void {
    const old = this.#slots;
    const capacity = this.#slotOf.length * 2;
    this.#slots = new Int32Array(capacity * 2 * STRIDE);
    this.#mask = capacity * 2 - 1;
    this.#slotOf = new Int32Array(capacity);
    const counts = new Int32Array(capacity * 2);
    counts.set(this.#counts);
    this.#counts = counts;
    const slots = this.#slots;
    for (let from = 0; from < old.length; from += STRIDE) {
      const entry = old[from]!;
      if (entry === 0) continue;
      let slot = hash(old[from + PREFIX]!, old[from + LAST]!) & this.#mask;
      while (slots[slot * STRIDE] !== 0) slot = (slot + 1) & this.#mask;
      const at = slot * STRIDE;
      slots.set(old.subarray(from, from + STRIDE), at);
      this.#slotOf[entry - 1] = at;
    }
  }
}

function hash(prefix: number, last: number): number {
  let h = Math.imul(prefix, 0x9e3779b1) ^ last;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  return h ^ (h >>> 13);
}

/** Result of indexing: one table per order 2..maxN, plus consecutive-message overlap at `pairN`. */
export interface NgramIndex {
  /** tables[n] for 2 <= n <= maxN. */
  tables: NgramTable[];
  /** Jaccard of consecutive messages' `pairN`-gram sets, one per pair where either set is non-empty. */
  pairOverlaps: number[];
}

/**
 * Indexes the n-grams of orders 2..maxN of a sequence of messages, given as one stream of token ids
 * and `ends[m]`, the stream offset where message m ends; and the Jaccard overlap of each consecutive
 * pair of messages at order `pairN` (2 <= pairN <= maxN). One order at a time, so only one table is
 * hot in the cache: the ids of order n-1 at each position are the prefixes of order n.
 */
export function indexNgrams(stream: Int32Array, ends: Int32Array, maxN: number, pairN: number): NgramIndex {
  const tables: NgramTable[] = [];
  const pairOverlaps: number[] = [];
  // prefixes[i]: id of the (n-1)-gram starting at stream position i (token ids for n = 2).
  let prefixes = stream;
  for (let n = 2; n <= maxN; n++) {
    const table = new NgramTable(n, stream.length);
    tables[n] = table;
    // Overwriting prefixes in place is safe (position i is read before it is written), but not the stream.
    const ids = n === 2 ? new Int32Array(stream.length) : prefixes;
    const pairs = n === pairN;
    let start = 0;
    // Distinct n-grams of the previous message, for the pair overlap.
    let previousDistinct = 0;
    for (let m = 0; m < ends.length; m++) {
      const end = ends[m]!;
      // Distinct n-grams of this message, and how many of them the previous message also has.
      let distinct = 0;
      let shared = 0;
      for (let i = start; i + n <= end; i++) {
        ids[i] = table.add(prefixes[i]!, stream[i + n - 1]!, m);
        if (pairs && table.seenIn !== m) {
          distinct++;
          if (table.seenIn === m - 1) shared++;
        }
      }
      if (pairs && m > 0) {
        const union = distinct + previousDistinct - shared;
        if (union > 0) pairOverlaps.push(shared / union);
      }
      previousDistinct = distinct;
      start = end;
    }
    prefixes = ids;
  }
  return { tables, pairOverlaps };
}

/** The text of an n-gram: its tokens joined by single spaces. */
export function ngramText(tables: readonly NgramTable[], n: number, id: number, lexicon: Lexicon): string {
  const words: string[] = [];
  let current = id;
  for (let k = n; k >= 2; k--) {
    const table = tables[k]!;
    words.push(lexicon.word(table.lastOf(current)));
    current = table.prefixOf(current);
  }
  words.push(lexicon.word(current));
  return words.reverse().join(" ");
}
