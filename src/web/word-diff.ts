// A word-level diff of two texts (a persona, a claim, a judge's reasoning) for the pages: the longest common
// subsequence of their word tokens, rendered escaped with <del> for A's words and <ins> for B's.
import { type Html, html } from "./html.ts";

export type WordDiffPart = { op: "same" | "del" | "ins"; text: string };

/** Words and the whitespace after each, so that joining the tokens gives the text back unchanged. */
export function wordTokens(text: string): string[] {
  return text.match(/\s+|[^\s]+\s*/g) ?? [];
}

// Past this many token pairs the LCS table (a Uint32 per pair) grows beyond ≈ 16 MB: the diff then says
// that the whole text changed rather than make the page slow.
const MAX_CELLS = 4_000_000;

/**
 * The parts of B's text against A's, in reading order: the words both keep, A's removed ones and B's added
 * ones (a removal before the addition that replaces it). Compared on words without their trailing whitespace.
 */
export function wordDiff(a: string, b: string): WordDiffPart[] {
  const x = wordTokens(a);
  const y = wordTokens(b);
  // The common head and tail need no table.
  let head = 0;
  while (head < x.length && head < y.length && x[head] === y[head]) head++;
  let tail = 0;
  while (
    tail < x.length - head &&
    tail < y.length - head &&
    x[x.length - 1 - tail] === y[y.length - 1 - tail]
  )
    tail++;
  const xs = x.slice(head, x.length - tail);
  const ys = y.slice(head, y.length - tail);
  const middle: WordDiffPart[] =
    (xs.length + 1) * (ys.length + 1) > MAX_CELLS ? wholeChange(xs, ys) : lcsParts(xs, ys);
  return merge([
    ...x.slice(0, head).map((text) => ({ op: "same" as const, text })),
    ...middle,
    ...x.slice(x.length - tail).map((text) => ({ op: "same" as const, text })),
  ]);
}

function wholeChange(xs: readonly string[], ys: readonly string[]): WordDiffPart[] {
  return [
    ...xs.map((text) => ({ op: "del" as const, text })),
    ...ys.map((text) => ({ op: "ins" as const, text })),
  ];
}

function lcsParts(xs: readonly string[], ys: readonly string[]): WordDiffPart[] {
  const key = (t: string) => t.trimEnd();
  const n = xs.length;
  const m = ys.length;
  const width = m + 1;
  // lengths[i][j]: the LCS length of xs[i..] and ys[j..].
  const lengths = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lengths[i * width + j] =
        key(xs[i]!) === key(ys[j]!)
          ? lengths[(i + 1) * width + j + 1]! + 1
          : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
  const out: WordDiffPart[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (key(xs[i]!) === key(ys[j]!)) {
      out.push({ op: "same", text: ys[j]! });
      i++;
      j++;
    } else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!)
      out.push({ op: "del", text: xs[i++]! });
    else out.push({ op: "ins", text: ys[j++]! });
  }
  while (i < n) out.push({ op: "del", text: xs[i++]! });
  while (j < m) out.push({ op: "ins", text: ys[j++]! });
  return out;
}

/** Runs of one kind joined, and within a changed stretch all removals before all additions. */
function merge(parts: readonly WordDiffPart[]): WordDiffPart[] {
  const out: WordDiffPart[] = [];
  let dels = "";
  let ins = "";
  const flush = () => {
    if (dels) out.push({ op: "del", text: dels });
    if (ins) out.push({ op: "ins", text: ins });
    dels = "";
    ins = "";
  };
  for (const p of parts) {
    if (p.op === "del") dels += p.text;
    else if (p.op === "ins") ins += p.text;
    else {
      flush();
      const last = out.at(-1);
      if (last?.op === "same") last.text += p.text;
      else out.push({ ...p });
    }
  }
  flush();
  return out;
}

/** How many words A lost and B gained. */
export function wordDiffCounts(parts: readonly WordDiffPart[]): { removed: number; added: number } {
  const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
  let removed = 0;
  let added = 0;
  for (const p of parts)
    if (p.op === "del") removed += words(p.text);
    else if (p.op === "ins") added += words(p.text);
  return { removed, added };
}

/** The diff as escaped markup: unchanged text as is, A's words in <del>, B's in <ins>. */
export function wordDiffHtml(a: string, b: string): Html {
  return html`${wordDiff(a, b).map((p) =>
    p.op === "same"
      ? html`${p.text}`
      : p.op === "del"
        ? html`<del>${p.text}</del>`
        : html`<ins>${p.text}</ins>`,
  )}`;
}
