// The frame of every dashboard page: the document head (one stylesheet, one deferred script, both from
// /assets/ — the CSP allows nothing inline), the navigation, and the first-run message of an empty store.
import { type Fragment, type Html, html } from "./html.ts";

export type Section =
  | "agents"
  | "runs"
  | "sessions"
  | "conversations"
  | "corrections"
  | "calibrations"
  | "experiments"
  | "validations";

const NAV: readonly [Section, string][] = [
  ["agents", "Agents"],
  ["runs", "Runs"],
  ["sessions", "Sessions"],
  ["conversations", "Conversations"],
  ["corrections", "Corrections"],
  ["calibrations", "Calibration"],
  ["experiments", "Experiments"],
  ["validations", "Validations"],
];

export function layout({
  title,
  section,
  body,
  signedOut = false,
}: {
  title: string;
  section?: Section;
  body: Fragment;
  /** A page for a visitor without the token (the login form): no navigation, whose every link would ask again, and no script. */
  signedOut?: boolean;
}): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Dramaturg</title>
<link rel="stylesheet" href="/assets/dashboard.css">
${signedOut ? "" : html`<script src="/assets/dashboard.js" defer></script>`}
</head>
<body>
<header class="top">
<a class="brand" href="/agents">Dramaturg</a>
${
  signedOut
    ? ""
    : html`<nav aria-label="sections">${NAV.map(
        ([id, label]) =>
          html`<a href="/${id}"${id === section ? html` aria-current="page"` : ""}>${label}</a>`,
      )}<!--account--></nav>`
}
${
  // The search box of every page: a plain GET form to /search, no script.
  signedOut
    ? ""
    : html`<form class="site-search" method="get" action="/search" role="search"><label class="visually-hidden" for="site-search">Search agents, runs, sessions and messages</label><input id="site-search" type="search" name="q" placeholder="Search…" maxlength="200" required><button type="submit">Search</button></form>`
}
</header>
<main>
${body}
</main>
</body>
</html>
`;
}

/**
 * Where the navigation ends: the routes put the sign-out link there when the server has a token (a page
 * does not know whether it has; the routes do). See {@link withAccount}.
 */
const ACCOUNT_SLOT = "<!--account-->";

/** A page with its account slot filled: a sign-out link when visitors sign in, else nothing. */
export function withAccount(page: Html, signOut: boolean): string {
  return page.replace(ACCOUNT_SLOT, signOut ? '<a class="sign-out" href="/logout">Sign out</a>' : "");
}

/** What to run to fill an empty page, per section. */
const FIRST_RUN: Record<Section, { what: string; commands: string[] }> = {
  agents: {
    what: "No agent has been evaluated yet.",
    commands: [
      "dramaturg eval transcript.json --propositions propositions --judge openai:gpt-4o-mini",
      "npm run demo:serve   # in a clone of the Dramaturg repository: look around the demo data first",
    ],
  },
  runs: {
    what: "No evaluation run is stored yet.",
    commands: ["dramaturg eval transcript.json --judge openai:gpt-4o-mini"],
  },
  sessions: {
    what: "No session has been analysed yet.",
    commands: [
      "dramaturg session analyze session.json --judge openai:gpt-4o-mini",
      // The page cannot know the address it is reached by (a port of its own, a proxy): a placeholder, said so.
      "curl -X POST -H 'Content-Type: application/json' --data @session.json http://HOST:PORT/api/sessions/analyze",
      "   # HOST:PORT: this server's address, as in your browser's address bar;",
      '   # with a token, also -H "Authorization: Bearer $DRAMATURG_TOKEN"',
    ],
  },
  conversations: {
    what: "No conversation has been run yet.",
    commands: ["dramaturg converse job.yml --user-model openai:gpt-4o-mini --judge openai:gpt-4o-mini"],
  },
  corrections: {
    what: "The action gate has logged no check yet.",
    commands: [
      "dramaturg config agent set AGENT gate_adherence_enabled=true   # the gate on for an agent",
      "dramaturg simulate world.yml --judge openai:gpt-4o-mini",
    ],
  },
  calibrations: {
    what: "No calibration is stored yet: label a persona evaluation (its labelling page, or a dramaturg.labels/v1 file), then compare its judge with the labels.",
    commands: [
      "dramaturg calibrate --labels labels.yaml --run EVALUATION_ID",
      "dramaturg calibrate --labels labels.yaml --run EVALUATION_ID --judge openai:gpt-4o-mini   # judge the items afresh",
    ],
  },
  experiments: {
    what: "No experiment is stored yet.",
    commands: [
      "dramaturg experiment run brainstorming-average --scale 0.1 --model openai:gpt-4o-mini --judge openai:gpt-4o-mini",
      "npm run demo:experiment   # in a clone of the Dramaturg repository: a scripted experiment, offline",
    ],
  },
  validations: {
    what: "No validation is stored yet: hold simulated answers against real people's.",
    commands: [
      "dramaturg validate survey.csv simulated.csv --column Vote --kind ordinal --scale 1-5",
      "dramaturg validate survey.csv simulated.csv --spec questions.yaml --experiment EXPERIMENT_ID",
    ],
  },
};

/** The message of an empty store: what is missing and the commands that make it. */
export function firstRun(section: Section): Html {
  const { what, commands } = FIRST_RUN[section];
  return html`<section class="first-run">
<h2>Nothing here yet</h2>
<p>${what} Run one of these against this store (the same <code>--db</code> as the server):</p>
<pre>${commands.join("\n")}</pre>
</section>`;
}

/** A page's "next page" link, when there is one. */
export function nextPageLink(href: string | undefined): Html {
  return href === undefined
    ? html``
    : html`<p class="pager"><a rel="next" href="${href}">Next page →</a></p>`;
}
