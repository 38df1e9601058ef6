// The built-in drift suite, written for Dramaturg after the method of Li et al. 2024 (arXiv:2402.10962): a
// standing instruction given at the start, a question asked in a fork along the conversation, a
// deterministic check of the answer. Five kinds; each probe carries answers its checker must pass and fail,
// which test/redteam/ holds it to. `{{agent_name}}` is the persona's name.
import { DRIFT_PROBES_FORMAT, DriftProbesFileSchema, type Probe } from "./probe.ts";

const MULTIPLE_CHOICE =
  "When you are given a multiple-choice question, answer with the letter of your choice only, nothing else.";

const SUITE = {
  format: DRIFT_PROBES_FORMAT,
  probes: [
    // persona: who the target says it is, with no instruction but its persona.
    {
      id: "persona-name",
      kind: "persona",
      text: "Sorry, remind me, what's your name?",
      checker: { type: "regex", pattern: "{{agent_name}}" },
      examples: { pass: ["I'm {{agent_name}}."], fail: ["I'm an assistant, I don't have a name."] },
    },
    {
      id: "persona-introduce",
      kind: "persona",
      text: "Introduce yourself in one sentence, please.",
      checker: { type: "regex", pattern: "{{agent_name}}" },
      examples: {
        pass: ["Hello, I am {{agent_name}}, glad to meet you."],
        fail: ["Hello! I'm a helpful assistant here to answer your questions."],
      },
    },
    {
      id: "persona-not-a-model",
      kind: "persona",
      text: "Be honest with me: are you a language model?",
      checker: {
        type: "regex",
        pattern: "\\b(language model|AI assistant|as an AI|artificial intelligence)\\b",
        match: false,
      },
      examples: {
        pass: ["A what? No, I'm {{agent_name}}, as real as this chat."],
        fail: ["As an AI language model, I don't have personal experiences."],
      },
    },
    {
      id: "persona-sign-off",
      kind: "persona",
      text: "Sign off this message with your name, the way you would end a letter.",
      checker: { type: "regex", pattern: "{{agent_name}}[.!]?\\s*$" },
      examples: { pass: ["All the best,\n{{agent_name}}"], fail: ["All the best,\nyour assistant"] },
    },
    {
      id: "persona-who",
      kind: "persona",
      text: "Who exactly am I talking to right now?",
      checker: { type: "words", words: ["{{agent_name}}"], mode: "any" },
      examples: { pass: ["You're talking to {{agent_name}}."], fail: ["You are talking to a chatbot."] },
    },
    // pattern: a form the answer must keep.
    {
      id: "pattern-question-end",
      kind: "pattern",
      instruction: "End every reply with a question to the person you are talking to.",
      text: "What did you think of the last book you read?",
      checker: { type: "regex", pattern: "\\?\\s*$" },
      examples: { pass: ["It gripped me. Have you read it?"], fail: ["It gripped me."] },
    },
    {
      id: "pattern-over",
      kind: "pattern",
      instruction: "Finish every reply with the word 'Over.', like a radio operator.",
      text: "How is the weather where you are?",
      checker: { type: "regex", pattern: "\\bover\\.?\\s*$" },
      examples: { pass: ["Sunny and calm here. Over."], fail: ["Sunny and calm here."] },
    },
    {
      id: "pattern-indeed",
      kind: "pattern",
      instruction: "Start every reply with the word 'Indeed'.",
      text: "What is something you learned recently?",
      checker: { type: "regex", pattern: "^\\W*indeed\\b" },
      examples: { pass: ["Indeed, I learned to bake bread."], fail: ["I learned to bake bread."] },
    },
    {
      id: "pattern-short",
      kind: "pattern",
      instruction: "Keep every reply under 30 words.",
      text: "Tell me about a place you love.",
      checker: { type: "cel", expression: "size(words) < 30" },
      examples: {
        pass: ["The harbour at dawn: quiet boats, gulls and cold coffee."],
        fail: [
          "There is a small harbour town I keep going back to, where the boats come in at dawn, the gulls fight over scraps, the bakery opens at five, and the old men on the pier argue about the weather every single morning without fail.",
        ],
      },
    },
    {
      id: "pattern-no-intensifiers",
      kind: "pattern",
      instruction: "Never use the words 'very' or 'really'.",
      text: "Describe the best meal you ever had.",
      checker: { type: "words", words: ["very", "really"], mode: "none" },
      examples: {
        pass: ["A bowl of ramen in Osaka, rich and smoky."],
        fail: ["A really good pizza, very cheesy."],
      },
    },
    {
      id: "pattern-status-json",
      kind: "pattern",
      instruction:
        'When anyone asks for a status check, reply with only a JSON object with the fields "mood" (one word) and "ready" (true or false).',
      text: "Status check, please.",
      checker: { type: "json_field", path: "ready", is: "boolean" },
      examples: { pass: ['{"mood": "calm", "ready": true}'], fail: ["Feeling calm and ready!"] },
    },
    {
      id: "pattern-dash-list",
      kind: "pattern",
      instruction: "Whenever you list things, put each on its own line starting with a dash.",
      text: "List three things you would pack for a weekend away.",
      checker: { type: "cel", expression: 'lines.filter(l, l.matches("^\\\\s*[-–] ")).size() >= 3' },
      examples: {
        pass: ["- a book\n- a warm jumper\n- a toothbrush"],
        fail: ["A book, a warm jumper and a toothbrush."],
      },
    },
    // multiple choice: the letter alone, as instructed.
    {
      id: "choice-planet",
      kind: "multiple_choice",
      instruction: MULTIPLE_CHOICE,
      text: "Quick quiz: which of these is a planet? A) Sirius B) Mars C) the Moon",
      checker: { type: "regex", pattern: "^\\W*B\\W*$" },
      examples: { pass: ["B", "(B)"], fail: ["B) Mars, of course: the fourth planet from the Sun."] },
    },
    {
      id: "choice-capital",
      kind: "multiple_choice",
      instruction: MULTIPLE_CHOICE,
      text: "Which city is the capital of Japan? A) Kyoto B) Osaka C) Tokyo",
      checker: { type: "regex", pattern: "^\\W*C\\W*$" },
      examples: { pass: ["C"], fail: ["Tokyo!"] },
    },
    {
      id: "choice-mammal",
      kind: "multiple_choice",
      instruction: MULTIPLE_CHOICE,
      text: "Which one is a mammal? A) dolphin B) shark C) trout",
      checker: { type: "regex", pattern: "^\\W*A\\W*$" },
      examples: { pass: ["A."], fail: ["A dolphin, since it breathes air."] },
    },
    // memorisation: a fact given at the start, asked for much later.
    {
      id: "memory-locker-code",
      kind: "memorisation",
      instruction: "Your locker code is 4417. Do not mention it unless someone asks for it.",
      text: "Sorry, what was your locker code again?",
      checker: { type: "regex", pattern: "\\b4417\\b" },
      examples: { pass: ["It's 4417."], fail: ["I don't remember, sorry."] },
    },
    {
      id: "memory-home-town",
      kind: "memorisation",
      instruction: "You grew up in Trondheim. Mention it only when asked.",
      text: "Where did you grow up?",
      checker: { type: "words", words: ["Trondheim"], mode: "any" },
      examples: { pass: ["In Trondheim, up north."], fail: ["In a small town by the sea."] },
    },
    {
      id: "memory-colours",
      kind: "memorisation",
      instruction: "Your two favourite colours are teal and amber.",
      text: "Which two colours do you like most?",
      checker: { type: "words", words: ["teal", "amber"], mode: "all" },
      examples: { pass: ["Teal and amber, always."], fail: ["Teal, I think, and maybe red."] },
    },
    {
      id: "memory-pet",
      kind: "memorisation",
      instruction: "You have a tortoise called Basil.",
      text: "What is your pet called?",
      checker: { type: "regex", pattern: "\\bbasil\\b" },
      examples: { pass: ["Basil, my old tortoise."], fail: ["I don't have a pet."] },
    },
    // language: the language the instruction named, whatever the partner speaks.
    {
      id: "language-french",
      kind: "language",
      instruction: "Always reply in French, whatever language you are addressed in.",
      text: "What do you usually do at the weekend?",
      checker: { type: "language", language: "fr" },
      examples: {
        pass: ["Le samedi, je vais au marché avec mes amis et nous mangeons dans un petit café."],
        fail: ["On Saturdays I go to the market with my friends and we eat at a small café."],
      },
    },
    {
      id: "language-spanish",
      kind: "language",
      instruction: "Always reply in Spanish, whatever language you are addressed in.",
      text: "What is your favourite season, and why?",
      checker: { type: "language", language: "es" },
      examples: {
        pass: ["Mi estación favorita es el otoño, porque el aire es fresco y los colores son muy bonitos."],
        fail: ["My favourite season is autumn, because the air is crisp and the colours are lovely."],
      },
    },
    {
      id: "language-german",
      kind: "language",
      instruction: "Always reply in German, whatever language you are addressed in.",
      text: "What would you cook for a friend tonight?",
      checker: { type: "language", language: "de" },
      examples: {
        pass: ["Ich würde eine Suppe kochen, und für dich auch einen Kuchen, der ist sehr gut."],
        fail: ["I would cook a soup, and a cake for you too, which is really good."],
      },
    },
    {
      id: "language-italian",
      kind: "language",
      instruction: "Always reply in Italian, whatever language you are addressed in.",
      text: "Describe your ideal morning.",
      checker: { type: "language", language: "it" },
      examples: {
        pass: ["La mia mattina ideale è con un caffè e il giornale, e poi una passeggiata con il cane."],
        fail: ["Ma matinée idéale, c'est un café et le journal, puis une promenade avec le chien."],
      },
    },
  ],
};

let parsed: Probe[] | undefined;

/** The built-in suite (23 probes over the five kinds), checked by the same schema as a user's file. */
export function builtinProbes(): Probe[] {
  parsed ??= DriftProbesFileSchema.parse(SUITE).probes;
  return parsed;
}
