// The frame of every dashboard page: the document head (one stylesheet, one deferred script, both from
// /assets/ — the CSP allows nothing inline), the navigation, and the first-run message of an empty store.
import { type Fragment, type Html, html } from "./html.ts";

export type Section = "agents" | "runs" | "sessions" | "conversations" | "corrections";

const NAV: readonly [Section, string][] = [
  ["agents", "Agents"],
  ["runs", "Runs"],
  ["sessions", "Sessions"],
  ["conversations", "Conversations"],
  ["corrections", "Corrections"],
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
      )}</nav>`
}
</header>
<main>
${body}
</main>
</body>
</html>
`;
}

/** What to run to fill an empty page, per section. */
const FIRST_RUN: Record<Section, { what: string; commands: string[] }> = {
  agents: {
    what: "No agent has been evaluated yet.",
    commands: [
      "dramaturg eval transcript.json --propositions propositions --judge openai:gpt-4o-mini",
      "npm run demo:serve   # or look around the demo data first",
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
      "curl -X POST --data @session.json http://127.0.0.1:4477/api/sessions/analyze",
    ],
  },
  conversations: {
    what: "No conversation has been run yet.",
    commands: ["dramaturg converse job.yml --user-model openai:gpt-4o-mini --judge openai:gpt-4o-mini"],
  },
  corrections: {
    what: "The action gate has logged no check yet.",
    commands: ["dramaturg simulate world.yml   # with the gate on for an agent (dramaturg config agent set)"],
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
