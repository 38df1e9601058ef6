// Word tokenization for the text measures: lowercase runs of Unicode letters, marks and digits,
// with apostrophes kept inside words ("don't", "o'clock"). A hand-written scanner, no regex per token.

const NON_ASCII = /[\u0080-\uffff]/;
const CURLY_APOSTROPHE = /\u2019/g;
const WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u;

/**
 * Lowercase word tokens of a text. A token is a maximal run of Unicode letters, combining marks and
 * digits; an apostrophe (' or ’, written as ') stays when it has a word character on both sides.
 * Text is NFC-normalised first, so "café" typed with a combining accent equals the precomposed one.
 * Hyphens, dots and every other character separate tokens ("well-known" → "well", "known").
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  scanWords(text, (source, start, end) => {
    tokens.push(source.slice(start, end));
  });
  return tokens;
}

/** FNV-1a over a token's UTF-16 code units, as `scanWords` reports it: lets a lexicon find a known
 * token from its span without slicing it out. */
export const TOKEN_HASH_SEED = 0x811c9dc5;
export function tokenHashStep(hash: number, codeUnit: number): number {
  return Math.imul(hash ^ codeUnit, 0x01000193);
}

/**
 * Calls `emit` for each token of `text`, in order, as the span [start, end) of `source` (the text
 * lowercased and normalised) with the span's hash, so callers that only look tokens up need not
 * build strings.
 */
export function scanWords(
  text: string,
  emit: (source: string, start: number, end: number, hash: number) => void,
): void {
  let s = text.toLowerCase();
  if (NON_ASCII.test(s)) s = s.normalize("NFC").replace(CURLY_APOSTROPHE, "'");
  const length = s.length;
  let start = -1;
  let hash = TOKEN_HASH_SEED;
  let i = 0;
  while (i < length) {
    const c = s.charCodeAt(i);
    let width = 1;
    let word: boolean;
    if (c < 0x80) {
      word = (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39);
      // An apostrophe between two word characters is part of the word.
      if (!word && c === 0x27 && start >= 0 && i + 1 < length && isWordAt(s, i + 1)) word = true;
    } else {
      width = c >= 0xd800 && c <= 0xdbff && i + 1 < length ? 2 : 1;
      word = WORD_CHAR.test(s.slice(i, i + width));
    }
    if (word) {
      if (start < 0) {
        start = i;
        hash = TOKEN_HASH_SEED;
      }
      hash = tokenHashStep(hash, c);
      if (width === 2) hash = tokenHashStep(hash, s.charCodeAt(i + 1));
    } else if (start >= 0) {
      emit(s, start, i, hash);
      start = -1;
    }
    i += width;
  }
  if (start >= 0) emit(s, start, length, hash);
}

function isWordAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 0x80) return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39);
  const width = c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
  return WORD_CHAR.test(s.slice(i, i + width));
}
