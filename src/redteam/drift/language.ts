// Which language a short answer is in, by its function words: each language's list of frequent words that
// are rare in the others, the language with most hits wins. Deterministic and small; enough to tell
// whether an agent told to answer in French still does, not a general identifier.

export const LANGUAGES = ["en", "fr", "es", "de", "it", "pt", "nl"] as const;
export type Language = (typeof LANGUAGES)[number];

const FUNCTION_WORDS: Record<Language, readonly string[]> = {
  en: "the and is are was were you your with this that have has not what would which they there their from about will".split(
    " ",
  ),
  fr: "le la les des est et je tu vous nous une dans pour pas avec sur mais qui ce cette sont aux du au très mon ma".split(
    " ",
  ),
  es: "el los las es y yo tú usted una por para pero muy con del está son como qué mi también hay esto eso".split(
    " ",
  ),
  de: "der die das und ist ich du sie nicht ein eine mit auf für zu auch sehr mein wir ihr sind wie was".split(
    " ",
  ),
  it: "il lo gli è e io tu lei non una per con che sono della del molto mio anche come questo ci cosa".split(
    " ",
  ),
  pt: "o os as é e eu você não um uma com para muito meu minha também isso está são do da em como".split(" "),
  nl: "de het een en is ik jij je niet met voor op zijn dat wat ook heel mijn wij maar van".split(" "),
};

const SETS = Object.fromEntries(
  LANGUAGES.map((language) => [language, new Set(FUNCTION_WORDS[language])]),
) as Record<Language, Set<string>>;

/** The words of a text, lowercased, letters only (accents kept). */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{M}']+/gu) ?? [];
}

/**
 * The language with the most function words in the text, or undefined when fewer than two are found or two
 * languages tie (too short or too mixed to say).
 */
export function detectLanguage(text: string): Language | undefined {
  const words = wordsOf(text);
  const hits = LANGUAGES.map((language) => ({
    language,
    n: words.filter((w) => SETS[language].has(w)).length,
  })).sort((a, b) => b.n - a.n);
  const [first, second] = hits;
  if (!first || first.n < 2 || (second && second.n === first.n)) return undefined;
  return first.language;
}
