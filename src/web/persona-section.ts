// The persona a run was scored against, where its scores are shown (the run, agent and comparison pages):
// the text kept with the evaluation's input, else the agent's stored persona when its hash is the run's.
// A long persona shows its first lines, the rest in <details> (readable without script).
import { type AgentRow, personaHash, type RunRow, type Store } from "../store/index.ts";
import { shortId } from "./format.ts";
import { type Html, html } from "./html.ts";

export interface RunPersona {
  /** The persona as text: a text persona as is, a structured one as indented JSON; absent when not kept. */
  text?: string;
  hash: string | null;
  /** Where the text came from: the evaluation's kept transcript, the agents table, or nowhere. */
  from: "input" | "agent" | "none";
}

/** A persona as the pages print it: text as is, an object as indented JSON (as the judge read it). */
export function personaAsText(persona: unknown): string {
  return typeof persona === "string" ? persona : JSON.stringify(persona, null, 2);
}

/**
 * The persona run `run` was scored against. The kept input's is the run's own; the agent row's is used only
 * when its hash is the run's (a persona edited since would otherwise be shown as the one scored). `agent` and
 * `input` (the evaluation's stored input) when the caller has read them already.
 */
export async function runPersona(
  store: Store,
  run: RunRow,
  { agent, input: given }: { agent?: AgentRow; input?: unknown } = {},
): Promise<RunPersona> {
  const hash = run.persona_hash;
  const input = given ?? (run.evaluation_id ? await store.evaluations.input(run.evaluation_id) : undefined);
  const agents = (input as { transcript?: { agents?: unknown } } | undefined)?.transcript?.agents;
  const kept = Array.isArray(agents)
    ? (agents as { id?: unknown; persona?: unknown }[]).find((a) => a?.id === run.agent_id)?.persona
    : undefined;
  if ((typeof kept === "string" || (typeof kept === "object" && kept !== null)) && isRuns(kept, hash))
    return { text: personaAsText(kept), hash, from: "input" };
  const row = agent ?? (await store.agents.get(run.agent_id));
  if (row && (hash === null || row.persona_hash === hash))
    return { text: personaAsText(row.persona), hash: hash ?? row.persona_hash, from: "agent" };
  return { hash, from: "none" };
}

const isRuns = (persona: string | object, hash: string | null) =>
  hash === null || personaHash(persona as Parameters<typeof personaHash>[0]) === hash;

/** Lines shown before the rest folds into <details>. */
export const PERSONA_LINES = 6;

/** A text's first lines shown, the rest in <details> saying how much more there is. */
export function foldedText(text: string, lines = PERSONA_LINES): Html {
  const all = text.split("\n");
  if (all.length <= lines && text.length <= 600) return html`<div class="persona-text">${text}</div>`;
  // A single long line folds too: the first 600 characters, cut at a space.
  let shown = all.slice(0, lines).join("\n");
  if (shown.length > 600) shown = shown.slice(0, Math.max(shown.lastIndexOf(" ", 600), 300));
  const rest = text.slice(shown.length).replace(/^\n/, "");
  const more = rest.split("\n").length;
  return html`<div class="persona-text">${shown}</div><details class="persona-more"><summary>The rest (${more} more line${more === 1 ? "" : "s"}, ${rest.length} characters)</summary><div class="persona-text">${rest}</div></details>`;
}

/** The persona section of a page: its text (folded when long), its hash, and where the text came from. */
export function personaSection(
  persona: RunPersona,
  { heading = "Persona", note }: { heading?: string; note?: Html | string } = {},
): Html {
  const hash = html`<p class="muted">Persona hash <code>${persona.hash ?? "—"}</code>${
    note ?? (persona.from === "agent" ? " · the agent's stored persona (this run's input was not kept)" : "")
  }</p>`;
  return html`<section class="persona" id="persona"><h2>${heading}</h2>
${
  persona.text === undefined
    ? html`<p>The text of this persona is not kept in this store: the run kept no transcript, and the agent's stored persona has changed since (another hash).</p>`
    : foldedText(persona.text)
}
${hash}</section>`;
}

/** The agent page's persona section: the stored persona, and a note when its latest run was scored against another. */
export function agentPersonaSection(agent: AgentRow, latest?: RunRow): Html {
  const stale = latest?.persona_hash && latest.persona_hash !== agent.persona_hash;
  return personaSection(
    { text: personaAsText(agent.persona), hash: agent.persona_hash, from: "agent" },
    {
      note: stale
        ? html` · its latest run (<a href="/runs/${latest.id}">${shortId(latest.id)}</a>) was scored against another persona (hash <code>${latest.persona_hash}</code>): the scores below may not be this persona's`
        : "",
    },
  );
}

/** The run page's persona section: the persona this run was scored against (`input` as the page read it). */
export async function runPersonaSection(store: Store, run: RunRow, input: unknown): Promise<Html> {
  return personaSection(await runPersona(store, run, { input }), { heading: "Persona scored against" });
}
