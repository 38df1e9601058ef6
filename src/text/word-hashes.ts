// Words and word n-grams as 32-bit hashes, and set measures over sorted hash arrays: the action gate's
// similarity and repetition checks run before every message, so they avoid building strings and Sets.
// Two different words share a hash with probability 2^-32 per pair; for a similarity of two messages
// that is a negligible error, and exact string measures (`wordJaccard`) remain for everything else.
import { scanWords, TOKEN_HASH_SEED, tokenHashStep } from "./tokenize.ts";

/** A text's word tokens (as `tokenize` gives them) with the hash of each. */
export interface HashedWords {
  tokens: string[];
  hashes: Uint32Array;
}

export function hashedWords(text: string): HashedWords {
  const tokens: string[] = [];
  const hashes: number[] = [];
  scanWords(text, (source, start, end, hash) => {
    tokens.push(source.slice(start, end));
    hashes.push(hash >>> 0);
  });
  return { tokens, hashes: Uint32Array.from(hashes) };
}

/** The distinct hashes of a text's words, ascending (no token strings are made). */
export function wordHashSet(text: string): Uint32Array {
  const hashes: number[] = [];
  scanWords(text, (_source, _start, _end, hash) => {
    hashes.push(hash >>> 0);
  });
  return distinctSorted(Uint32Array.from(hashes));
}

/** The hash of each word n-gram, in order: the n word hashes combined as FNV-1a combines characters. */
export function ngramHashes(wordHashes: Uint32Array, n: number): Uint32Array {
  const count = Math.max(0, wordHashes.length - n + 1);
  const out = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    let h = TOKEN_HASH_SEED;
    for (let k = 0; k < n; k++) {
      const w = wordHashes[i + k]!;
      h = tokenHashStep(h, w & 0xffff);
      h = tokenHashStep(h, w >>> 16);
    }
    out[i] = h >>> 0;
  }
  return out;
}

/** The distinct values of `values`, ascending (a new array). */
export function distinctSorted(values: Uint32Array): Uint32Array {
  const sorted = values.slice().sort();
  let length = 0;
  for (let i = 0; i < sorted.length; i++)
    if (i === 0 || sorted[i] !== sorted[length - 1]) sorted[length++] = sorted[i]!;
  return sorted.subarray(0, length);
}

/**
 * Jaccard of two sets given as ascending arrays of distinct values: |A ∩ B| / |A ∪ B|, with the
 * conventions of `jaccard` (two empty sets give 1, one empty set 0).
 */
export function sortedJaccard(a: Uint32Array, b: Uint32Array): number {
  if (a.length === 0 && b.length === 0) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  const shared = sortedIntersectionSize(a, b);
  return shared / (a.length + b.length - shared);
}

/** |A ∩ B| of two ascending arrays of distinct values. */
export function sortedIntersectionSize(a: Uint32Array, b: Uint32Array): number {
  let i = 0;
  let j = 0;
  let shared = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      shared++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return shared;
}
