// Interns word tokens to dense integer ids, so counting and n-gram keys work on numbers, not strings.
// Tokens are looked up straight from their span in the text: known words cost no string allocation.
import { scanWords, TOKEN_HASH_SEED, tokenHashStep } from "./tokenize.ts";

const MIN_SLOTS = 1024;

/** A growing word ↔ id table; ids are 0, 1, 2… in order of first appearance. */
export class Lexicon {
  readonly #words: string[] = [];
  readonly #hashes: number[] = [];
  /** Open-addressing table of id + 1 (0 = empty), kept at most half full. */
  #slots = new Int32Array(MIN_SLOTS);

  get size(): number {
    return this.#words.length;
  }

  /** The id of a word, assigning the next one on first sight. */
  id(word: string): number {
    let hash = TOKEN_HASH_SEED;
    for (let i = 0; i < word.length; i++) hash = tokenHashStep(hash, word.charCodeAt(i));
    return this.#spanId(word, 0, word.length, hash);
  }

  word(id: number): string {
    return this.#words[id]!;
  }

  /** Appends the token ids of `text` to `out` (and returns it). */
  tokenIds(text: string, out: number[] = []): number[] {
    scanWords(text, (source, start, end, hash) => {
      out.push(this.#spanId(source, start, end, hash));
    });
    return out;
  }

  #spanId(source: string, start: number, end: number, h: number): number {
    const words = this.#words;
    const slots = this.#slots;
    const mask = slots.length - 1;
    const length = end - start;
    let slot = (h ^ (h >>> 15)) & mask;
    for (;;) {
      const entry = slots[slot]!;
      if (entry === 0) break;
      const word = words[entry - 1]!;
      if (this.#hashes[entry - 1] === h && word.length === length && source.startsWith(word, start))
        return entry - 1;
      slot = (slot + 1) & mask;
    }
    const id = words.length;
    words.push(start === 0 && end === source.length ? source : source.slice(start, end));
    this.#hashes.push(h);
    slots[slot] = id + 1;
    if (words.length * 2 > slots.length) this.#grow();
    return id;
  }

  #grow(): void {
    const slots = new Int32Array(this.#slots.length * 2);
    const mask = slots.length - 1;
    this.#hashes.forEach((h, id) => {
      let slot = (h ^ (h >>> 15)) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    });
    this.#slots = slots;
  }
}
