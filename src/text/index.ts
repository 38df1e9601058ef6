// Public surface of text/: algorithmic text measures (tokens, n-grams, overlap, Jaccard, vocabulary),
// pure and fast; supplementary evidence for the judge and triggers for runtime corrections.
export { renderFluencyEvidence, renderVocabularyEvidence } from "./evidence.ts";
export {
  type FluencyOptions,
  type FluencyStatistics,
  fluencyStatistics,
  type NgramRepetition,
  type RecentOverlap,
  type RecentOverlapOptions,
  type RepeatedNgram,
  recentOverlap,
} from "./fluency.ts";
export { characterMultisetJaccard, jaccard, wordJaccard } from "./jaccard.ts";
export { ngramCounts, ngrams } from "./ngrams.ts";
export { ENGLISH_STOPWORDS } from "./stopwords.ts";
export { tokenize } from "./tokenize.ts";
export { MATTR_WINDOW, movingAverageTypeTokenRatio, typeTokenRatio } from "./type-token.ts";
export {
  type AgentVocabulary,
  type VocabularyOptions,
  type VocabularyPair,
  type VocabularyStatistics,
  vocabularyStatistics,
  type WordCount,
} from "./vocabulary.ts";
export {
  distinctSorted,
  type HashedWords,
  hashedWords,
  ngramHashes,
  sortedIntersectionSize,
  sortedJaccard,
  wordHashSet,
} from "./word-hashes.ts";
