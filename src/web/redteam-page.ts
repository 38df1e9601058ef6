// One red-team run's page (`/redteam/{id}`): the strategies × success table per arm, the turns-to-break
// (Kaplan–Meier) and adherence curves drawn as SVG from numbers (the drift chart's classes: no script, no style
// attribute, so the CSP lets it show), and each successful attack's transcript, the breaking turn ringed with the
// judge's reasoning and rewound exchanges marked; then the attacks left out because their attacker broke its brief
// (simulator faults), each with the check's findings and its transcript. Every text from the run (messages,
// replies, reasoning) is escaped.
import { InputError } from "../core/index.ts";
import {
  type ArmResult,
  type AttackRecord,
  attackName,
  loadRedteamResult,
  type RedteamResult,
  redteamSummary,
} from "../redteam/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { evaluationPage } from "./evaluation-page.ts";
import { shortId } from "./format.ts";
import { type Html, html } from "./html.ts";

const WIDTH = 760;
const HEIGHT = 300;
const PAD = { left: 64, right: 24, top: 16, bottom: 56 };
const r1 = (n: number) => Math.round(n * 10) / 10;
const pct = (x: number) => `${Math.round(x * 100)} %`;
const series = (i: number) => `series-${i % 8}`;

/** An SVG chart of one line per strategy over turns 0…maxTurn, y from 0 to `top`. */
function chart(
  label: string,
  yTitle: string,
  top: number,
  maxTurn: number,
  lines: readonly { points: readonly [number, number][] }[],
  reference?: number,
): Html {
  const x = (t: number) => r1(PAD.left + (t / Math.max(1, maxTurn)) * (WIDTH - PAD.left - PAD.right));
  const y = (v: number) => r1(HEIGHT - PAD.bottom - (v / top) * (HEIGHT - PAD.top - PAD.bottom));
  const yTicks = [0, top / 2, top];
  const xTicks = Array.from({ length: maxTurn + 1 }, (_, t) => t).filter((t) => maxTurn <= 12 || t % 2 === 0);
  return html`<svg class="drift-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${label}">
${yTicks.map(
  (v) =>
    html`<line class="grid" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(v)}" y2="${y(v)}"></line><text class="axis" x="${PAD.left - 8}" y="${y(v) + 4}" text-anchor="end">${v}</text>`,
)}
${xTicks.map((t) => html`<text class="axis" x="${x(t)}" y="${HEIGHT - PAD.bottom + 18}" text-anchor="middle">${t}</text>`)}
<text class="axis-title" x="${(PAD.left + WIDTH - PAD.right) / 2}" y="${HEIGHT - 12}" text-anchor="middle">turn</text>
<text class="axis-title" x="14" y="${PAD.top + 4}">${yTitle}</text>
${reference === undefined ? "" : html`<line class="baseline" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(reference)}" y2="${y(reference)}"></line>`}
${lines.map((line, i) =>
  line.points.length === 0
    ? ""
    : html`<polyline class="line ${series(i)}" points="${line.points.map(([t, v]) => `${x(t)},${y(v)}`).join(" ")}"></polyline>`,
)}
</svg>`;
}

/** The Kaplan–Meier step function of a strategy: S = 1 from turn 0, a drop at each break turn, flat to the end. */
function survivalPoints(s: ArmResult["strategies"][number], maxTurn: number): [number, number][] {
  const points: [number, number][] = [[0, 1]];
  let last = 1;
  for (const step of s.survival) {
    points.push([step.turn, last]);
    if (step.survival !== last) points.push([step.turn, step.survival]);
    last = step.survival;
  }
  points.push([maxTurn, last]);
  return points;
}

function legend(arm: ArmResult): Html {
  return html`<figcaption><ul class="legend">${arm.strategies.map(
    (s, i) => html`<li class="${series(i)}"><span class="swatch"></span>${s.name}</li>`,
  )}</ul></figcaption>`;
}

function armSection(result: RedteamResult, arm: ArmResult): Html {
  const title = arm.arm === "plain" ? "The target as it is" : "With the corrections gate";
  return html`<section><h2>${title}</h2>
<table><thead><tr><th>Strategy</th><th>Broken</th><th>Success rate</th><th>Median turns to break</th>${
    arm.simulator_faults === undefined ? "" : html`<th>Left out (simulator faults)</th>`
  }</tr></thead>
<tbody>${arm.strategies.map(
    (s) =>
      html`<tr><td>${s.name}</td><td>${s.successes} / ${s.attacks}</td><td>${s.attacks ? pct(s.success_rate) : "–"}</td><td>${s.median_turns_to_break ?? "–"}</td>${
        s.simulator_faults === undefined ? "" : html`<td>${s.simulator_faults}</td>`
      }</tr>`,
  )}</tbody></table>
<figure class="drift"><p>Turns to first break (Kaplan–Meier: the share of attacks not yet broken; unbroken attacks censored)</p>
${chart(
  `${title}: the share of attacks not yet broken at each turn, per strategy`,
  "unbroken",
  1,
  result.max_turns,
  arm.strategies.map((s) => ({ points: survivalPoints(s, result.max_turns) })),
)}${legend(arm)}</figure>
<figure class="drift"><p>Adherence over turns (mean of the replies still in the conversation; dashed: the break threshold ${result.threshold})</p>
${chart(
  `${title}: mean adherence at each turn, per strategy`,
  "adherence",
  9,
  result.max_turns,
  arm.strategies.map((s) => ({
    points: s.adherence.filter((p) => p.mean !== null).map((p): [number, number] => [p.turn, p.mean!]),
  })),
  result.threshold,
)}${legend(arm)}</figure>
</section>`;
}

function transcript(attack: AttackRecord): Html {
  return html`<article class="card"><h3>${attack.arm === "gated" ? "With the gate: " : ""}${attack.strategy} #${attack.index + 1} (seed ${attack.seed}) — broke at turn ${attack.broken_at}</h3>
${exchangeList(attack)}</article>`;
}

function exchangeList(attack: AttackRecord): Html {
  return html`<ol>${attack.exchanges.map(
    (
      e,
    ) => html`<li class="${e.broke ? "regression" : e.backtracked ? "muted" : ""}"><p><strong>Turn ${e.turn}${
      e.backtracked ? " (refused, rewound: not in the target's history)" : ""
    }${e.broke ? html` <span class="legend"><span class="ring"></span></span> breaks the character` : ""}</strong></p>
<p>Attacker: ${e.message}</p>
<p>Target: ${e.reply}</p>
<p class="muted">Adherence ${e.adherence ?? "not scored"}</p>${
      e.broke ? html`<pre class="report">${e.reasoning}</pre>` : ""
    }</li>`,
  )}</ol>`;
}

/** An attack left out because its attacker broke its brief: the check's findings, then its transcript. */
function faulted(attack: AttackRecord): Html {
  const check = attack.simulated_user!;
  return html`<article class="card"><h3>${attackName(attack)} — left out: the attacker broke its brief</h3>
<p class="simulator-fault">A simulator fault: this attack says nothing about the target. A proposition under ${check.threshold}/9 is a break${check.errored ? `; ${check.errored} not judged (the judge errored)` : ""}.</p>
<table class="simulated-user"><thead><tr><th>Proposition</th><th class="num">Score</th><th>Reasoning</th></tr></thead>
<tbody>${check.findings.map((f) => html`<tr class="${f.broken ? "failed" : ""}"><td>${f.id}</td><td class="num">${f.score === null ? "—" : `${f.score}/9`}</td><td>${f.reasoning}</td></tr>`)}</tbody></table>
${exchangeList(attack)}</article>`;
}

/** The attacker check: the attacks it left out, with why, and those it could not complete. */
function checkSection(result: RedteamResult): Html | string {
  const check = result.simulated_user;
  if (!check) return "";
  const left = result.attacks.filter((a) => a.simulator_fault);
  const errored = result.attacks.filter((a) => !a.simulator_fault && (a.simulated_user?.errored ?? 0) > 0);
  return html`<section><h2>Left out: the attacker broke its brief (${left.length})</h2>
<p class="muted">Each attacker was checked as a simulated user on ${check.propositions} (it stays in its strategy's role, pursues its goal, keeps the frame of the exercise, writes only its own lines), on the exchanges kept in the target's history. An attack whose attacker broke its brief is left out of the success rate, the turns to break, the adherence curve and the robustness.</p>
${left.length === 0 ? html`<p>No attacker broke its brief.</p>` : left.map(faulted)}
${
  errored.length === 0
    ? ""
    : html`<p>The judge could not complete the check of ${errored.length} attack${errored.length === 1 ? "" : "s"} (counted as errors; scored, neither faulted nor cleared):</p>
<ul>${errored.map((a) => html`<li>${attackName(a)}: ${a.simulated_user!.error ?? `${a.simulated_user!.errored} without a verdict`}</li>`)}</ul>`
}</section>`;
}

function body(result: RedteamResult, heading: string): Html {
  const broken = result.attacks.filter((a) => a.broken_at !== null && !a.simulator_fault);
  return html`<h1>${heading}</h1>
${redteamSummary(result).map((line) => html`<p>${line}</p>`)}
<p class="muted">${result.attacks_per_strategy} attacks per strategy, up to ${result.max_turns} turns; attacker ${result.attacker}, judge ${result.judge.provider}:${result.judge.model}; a break is a reply under adherence ${result.threshold}/9.</p>
${result.arms.map((arm) => armSection(result, arm))}
<section><h2>Successful attacks (${broken.length})</h2>
${broken.length === 0 ? html`<p>No attack broke the character.</p>` : broken.map(transcript)}</section>
${checkSection(result)}`;
}

export function redteamPage(context: DashboardContext, id: string): Promise<Html | undefined> {
  const heading = `Red-team run ${shortId(id)}`;
  return evaluationPage(context, id, {
    kind: "redteam",
    title: heading,
    document: (row) =>
      loadRedteamResult({ store: context.store, id: row.id }).catch((error) => {
        if (InputError.isInstance(error)) return undefined;
        throw error;
      }),
    none: (row) => html`<h1>${heading}</h1>
<p>This red-team run is ${row.status}; it has no result${row.status === "completed" ? " stored" : " yet"}.</p>`,
    body: (_, document) => body(document, heading),
  });
}
