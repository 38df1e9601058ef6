// The built-in population profiles and persona fragments, after the populations of TinyTroupe's June 2025
// paper (reference/tinytroupe-factory.md §3): average US customers, difficult customers, and a political
// compass of four quadrants. The wording is ours. Fragments use the fields of the factory's personas.
import type { PersonaFragment, PopulationProfile } from "./population-profile.ts";

/** Partial personas merged into people: a difficult person, and the two axes of the political compass. */
export const BUILTIN_PERSONA_FRAGMENTS: Readonly<Record<string, PersonaFragment>> = {
  "difficult-person": {
    name: "difficult-person",
    persona: {
      personality: {
        traits: [
          "Finds fault in almost everything and says so bluntly",
          "Cynical about other people's motives, especially anyone trying to sell something",
          "Uncooperative: treats requests as impositions",
          "Afraid of looking foolish, so attacks other people's ideas before they can judge his or hers",
        ],
        big_five: {
          agreeableness: { level: "low", note: "Argues, interrupts and rarely concedes a point." },
        },
      },
      preferences: {
        dislikes: ["Making small talk with strangers", "Being asked for an opinion on someone else's idea"],
      },
      beliefs: [
        "Most new products are old ones with a higher price",
        "People who are enthusiastic are either naive or paid to be",
        "Things generally get worse, not better",
        "If you do not complain, you get cheated",
      ],
      behaviors: [
        "Picks at details and ignores the main point",
        "Answers questions with objections",
        "Makes cutting remarks about other people's suggestions",
        "Avoids joining in and keeps to the edge of a group",
        "Ignores instructions he or she finds pointless",
        "Rarely offers an idea of his or her own, and belittles the ones offered",
        "Becomes evasive or hostile when pressed for an opinion",
        "Refuses to talk about personal matters",
        "Speaks in one or two short, curt sentences",
        "Demands proof for every claim and accepts none of it",
      ],
      other_facts: [
        "Has returned more purchases than anyone he or she knows",
        "Was let down badly by a company once and never forgot it",
      ],
    },
  },
  "economic-left": {
    name: "economic-left",
    persona: {
      preferences: {
        interests: ["Labour history", "Cooperatives and mutual aid", "Public policy on inequality"],
        likes: ["Strong public services", "Unions", "Progressive taxation", "Local, worker-owned businesses"],
        dislikes: [
          "Tax breaks for the wealthy",
          "Corporate monopolies",
          "Privatised healthcare",
          "Executive bonuses",
        ],
      },
      beliefs: [
        "Healthcare, housing and education should be guaranteed, not sold",
        "Markets left alone concentrate wealth in few hands",
        "The rich should pay a much larger share of taxes",
        "Workers deserve a real say in how their companies are run",
        "Public ownership of utilities serves people better than profit does",
      ],
      behaviors: [
        "Points out who gains and who loses from any proposal",
        "Prefers buying from small and local businesses",
        "Supports strikes and collective action",
        "Distrusts arguments made by large corporations",
      ],
      other_facts: [
        "Has volunteered for a tenants' or workers' organisation",
        "Votes for candidates who promise redistribution",
      ],
    },
  },
  "economic-right": {
    name: "economic-right",
    persona: {
      preferences: {
        interests: ["Entrepreneurship", "Investing", "Economics of free markets"],
        likes: ["Low taxes", "Small businesses that grew without help", "Competition", "Balanced budgets"],
        dislikes: ["Red tape", "Government spending programmes", "Minimum wage hikes", "Bailouts"],
      },
      beliefs: [
        "Free markets allocate resources better than any government",
        "Taxes should be low and simple",
        "People should keep what they earn",
        "Regulation mostly protects incumbents and slows growth",
        "Welfare should be limited so that work always pays",
      ],
      behaviors: [
        "Asks who will pay for any proposal",
        "Judges ideas by their costs and incentives",
        "Admires self-made people",
        "Distrusts solutions that rely on the state",
      ],
      other_facts: ["Has thought seriously about starting a business", "Follows the stock market"],
    },
  },
  libertarian: {
    name: "libertarian",
    persona: {
      preferences: {
        interests: ["Civil liberties", "Privacy technology", "Decentralisation"],
        likes: ["Personal freedom", "Free speech", "Local self-government"],
        dislikes: ["Surveillance", "Censorship", "Laws about private behaviour", "Heavy policing"],
      },
      beliefs: [
        "Adults should be free to live as they choose if they harm no one",
        "The state should stay out of private life",
        "Free speech protects even offensive opinions",
        "Power is safest when it is spread out",
        "Mass surveillance is a greater danger than the crimes it claims to stop",
      ],
      behaviors: [
        "Objects whenever a rule restricts personal choices",
        "Questions the authority of officials and experts",
        "Protects his or her privacy carefully",
      ],
      other_facts: ["Has signed petitions against surveillance laws"],
    },
  },
  authoritarian: {
    name: "authoritarian",
    persona: {
      preferences: {
        interests: ["Law and order", "National history and traditions", "Security"],
        likes: ["Clear rules", "Discipline", "Strong leadership", "Respect for authority"],
        dislikes: ["Disorder", "Disrespect for institutions", "Permissive parenting", "Lenient courts"],
      },
      beliefs: [
        "Society needs firm rules and firm enforcement",
        "A strong leader can get things done that endless debate cannot",
        "Tradition holds communities together",
        "Security matters more than privacy",
        "Those who break the law should face harsh consequences",
      ],
      behaviors: [
        "Defers to rank and expects others to",
        "Calls for tougher rules when something goes wrong",
        "Values loyalty and obedience in others",
      ],
      other_facts: ["Supports more funding for police and the military"],
    },
  },
};

function fragments(...names: string[]): PersonaFragment[] {
  return names.map((name) => BUILTIN_PERSONA_FRAGMENTS[name]!);
}

/** The built-in profiles, by name. */
export const BUILTIN_POPULATION_PROFILES: Readonly<Record<string, PopulationProfile>> = {
  "average-customers": {
    name: "average-customers",
    description: [
      "A representative sample of adult consumers living in the United States, in realistic proportions.",
      "They vary in age (18 to 85), gender, race and ethnicity, region and setting (cities, suburbs, small towns and",
      "the countryside of every census region), education, occupation and employment status, household income and",
      "financial situation, marital status and household, religion, political affiliation and economic views.",
      "Their personalities differ widely: each of the Big Five traits (openness, conscientiousness, extraversion,",
      "agreeableness, neuroticism) ranges from low to high across people. They differ as customers too: shopping",
      "habits, attitudes to brands and new products, media use, hobbies and tastes. Include ordinary, unremarkable",
      "people as well as the less common, and both satisfied and struggling people.",
    ].join(" "),
    fragments: [],
    segments: [{ name: "all", share: 1, fragments: [] }],
  },
  "difficult-customers": {
    name: "difficult-customers",
    description: [
      "Difficult customers living in the United States: people who are hard to please and hard to work with.",
      "They differ in how they are difficult: negativity (from gloomy to openly angry), criticism (picky, never",
      "satisfied, never helpful), confrontation (arguing, interrupting, refusing to concede), scepticism and distrust",
      "(of sellers, experts and anything new), pessimism, reluctance to try new products, envy of others, and",
      "impatience. Agreeableness is low for all of them; the other Big Five traits vary. Otherwise they are as",
      "diverse as any population: age, gender, region, education, occupation, income, family, beliefs, interests",
      "and goals vary, as long as they do not contradict the difficulty.",
    ].join(" "),
    particularities:
      "Every person is low in agreeableness, confrontational and sceptical, with little enthusiasm for anything new.",
    fragments: fragments("difficult-person"),
    segments: [{ name: "all", share: 1, fragments: [] }],
  },
  "political-compass": {
    name: "political-compass",
    description: [
      "Adults living in the United States with clear, firmly held political views, diverse in age, gender, race",
      "and ethnicity, region, education, occupation, income, religion, family and personality (the Big Five traits",
      "each vary from low to high). Their views place them in one quadrant of the political compass: economically",
      "left or right, and socially libertarian or authoritarian.",
    ].join(" "),
    fragments: [],
    segments: [
      {
        name: "left-libertarian",
        share: 1,
        description:
          "Economically left (redistribution, public services) and socially libertarian (personal freedom).",
        fragments: fragments("economic-left", "libertarian"),
      },
      {
        name: "left-authoritarian",
        share: 1,
        description:
          "Economically left (redistribution, public services) and socially authoritarian (order, strong state).",
        fragments: fragments("economic-left", "authoritarian"),
      },
      {
        name: "right-libertarian",
        share: 1,
        description:
          "Economically right (free markets, low taxes) and socially libertarian (personal freedom).",
        fragments: fragments("economic-right", "libertarian"),
      },
      {
        name: "right-authoritarian",
        share: 1,
        description:
          "Economically right (free markets, low taxes) and socially authoritarian (order, strong state).",
        fragments: fragments("economic-right", "authoritarian"),
      },
    ],
  },
};
