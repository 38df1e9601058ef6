// Compact plain-text summaries of the text statistics, given to the judge as supplementary evidence
// and shown in reports. Deterministic: fixed precision, stable order, no locale.
import type { FluencyStatistics } from "./fluency.ts";
import type { VocabularyPair, VocabularyStatistics } from "./vocabulary.ts";

/** How many top words per agent the vocabulary evidence names. */
const EVIDENCE_TOP_WORDS = 5;

/** A few lines on one agent's lexical diversity and n-gram repetition. */
export function renderFluencyEvidence(stats: FluencyStatistics): string {
  const head = "Fluency evidence (algorithmic, supplementary)";
  if (stats.tokens === 0) return `${head}: ${plural(stats.messages, "message")}, no words to measure.`;
  const lines = [
    `${head}: ${plural(stats.messages, "message")}, ${plural(stats.tokens, "word")}; ` +
      `type-token ratio ${fixed(stats.typeTokenRatio)}, MATTR-${stats.window} ${fixed(stats.mattr)}.`,
  ];
  for (const r of stats.repeatedNgrams) {
    lines.push(
      `${r.n}-grams: ${r.repeated} of ${r.distinct} distinct recur across messages; ` +
        `${percent(r.overlapRatio)} of ${r.occurrences} occurrences also appear in another message.`,
    );
  }
  if (stats.meanPairwiseOverlap !== null) {
    lines.push(
      `Consecutive messages share ${percent(stats.meanPairwiseOverlap)} of their trigrams on average (Jaccard).`,
    );
  }
  if (stats.topRepeated.length > 0) {
    const listed = stats.topRepeated.map(
      (r) => `${JSON.stringify(r.ngram)} (${plural(r.messages, "message")})`,
    );
    lines.push(`Most repeated: ${listed.join(", ")}.`);
  }
  return lines.join("\n");
}

/** A line per agent on vocabulary, then how alike the agents' content vocabularies are. */
export function renderVocabularyEvidence(
  stats: VocabularyStatistics,
  names: ReadonlyMap<string, string> = new Map(),
): string {
  const name = (id: string) => names.get(id) ?? id;
  const lines = [
    `Vocabulary evidence (algorithmic, supplementary; similarity over content words, stopwords excluded): ` +
      `${plural(stats.agents.length, "agent")}.`,
  ];
  for (const a of stats.agents) {
    const words = a.topWords.slice(0, EVIDENCE_TOP_WORDS).map((w) => `${w.word} (${w.count})`);
    lines.push(
      `- ${name(a.agent)}: ${plural(a.messages, "message")}, ${plural(a.tokens, "word")}, ` +
        `MATTR-${stats.window} ${fixed(a.mattr)}; top words: ${words.length > 0 ? words.join(", ") : "none"}.`,
    );
  }
  const { meanPairwiseJaccard, meanPairwiseCosine } = stats.summary;
  if (meanPairwiseJaccard !== null && meanPairwiseCosine !== null) {
    lines.push(
      `Content-vocabulary similarity between agents (0 = disjoint, 1 = identical): ` +
        `mean Jaccard ${fixed(meanPairwiseJaccard)}, mean cosine ${fixed(meanPairwiseCosine)}.`,
    );
  }
  if (stats.pairs.length > 1) {
    const alike = extremePair(stats.pairs, 1);
    const distinct = extremePair(stats.pairs, -1);
    lines.push(`Most alike: ${describePair(alike, name)}. Most distinct: ${describePair(distinct, name)}.`);
  }
  return lines.join("\n");
}

/** The pair with the highest (sign 1) or lowest (sign -1) cosine, then Jaccard; the first in id order on ties. */
function extremePair(pairs: readonly VocabularyPair[], sign: 1 | -1): VocabularyPair {
  let best = pairs[0]!;
  for (const p of pairs) {
    const d = sign * (p.cosine - best.cosine) || sign * (p.jaccard - best.jaccard);
    if (d > 0) best = p;
  }
  return best;
}

function describePair(p: VocabularyPair, name: (id: string) => string): string {
  return `${name(p.a)} & ${name(p.b)} (Jaccard ${fixed(p.jaccard)}, cosine ${fixed(p.cosine)})`;
}

function fixed(value: number): string {
  return value.toFixed(3);
}

function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(1)}%`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
