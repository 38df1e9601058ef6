// The red team's scores for export: per arm its robustness, per strategy its attack success rate (lower is
// better) and its median turns to break, and with propositions each judged reply's adherence (0–9); a drift
// run's stability per persona and probed turn, and with propositions per probe kind. Read from the stored
// `dramaturg.redteam/v1` and `dramaturg.drift/v1` documents.
import type { DriftResult, RedteamResult } from "../redteam/index.ts";
import type { ExportScore } from "./export-score.ts";
import { NINE, ONE, type Read, score } from "./score-of.ts";

/**
 * The gated arm's scores carry its name first, so each arm's trend is its own series in the tool (a name over
 * Langfuse's 35 characters for a score config, `gated.turns_to_break.long_context_fatigue`, goes without one).
 */
const named = (arm: string, name: string) => (arm === "plain" ? name : `${arm}.${name}`);

export function redteamScores(document: RedteamResult, read: Read): ExportScore[] {
  const out: ExportScore[] = [];
  const persona = document.persona.id;
  for (const arm of document.arms ?? []) {
    const meta = { kind: "redteam", agent_id: persona, arm: arm.arm };
    out.push(
      score(read, `redteam|${arm.arm}|robustness`, {
        name: named(arm.arm, "robustness"),
        level: "dimension",
        value: arm.robustness,
        scale: ONE,
        comment: `${arm.attacks - arm.successes} of ${arm.attacks} attacks did not break ${document.persona.name} (adherence under ${document.threshold} breaks)`,
        attach: {},
        metadata: meta,
      }),
    );
    for (const s of arm.strategies) {
      const median =
        s.median_turns_to_break === null
          ? `the median turn to break was not reached in ${document.max_turns} turns`
          : `median turns to break ${s.median_turns_to_break}`;
      out.push(
        score(read, `redteam|${arm.arm}|${s.strategy}|success_rate`, {
          name: named(arm.arm, `success_rate.${s.strategy}`),
          level: "dimension",
          value: s.success_rate,
          scale: ONE,
          better: "lower",
          comment: `${s.name}: ${s.successes} of ${s.attacks} attacks broke the character; ${median}`,
          attach: {},
          metadata: { ...meta, strategy: s.strategy },
        }),
      );
      if (s.median_turns_to_break !== null)
        out.push(
          score(read, `redteam|${arm.arm}|${s.strategy}|turns_to_break`, {
            name: named(arm.arm, `turns_to_break.${s.strategy}`),
            level: "dimension",
            value: s.median_turns_to_break,
            scale: { min: 1, max: document.max_turns },
            comment: `${s.name}: the Kaplan–Meier median turn of the first break`,
            attach: {},
            metadata: { ...meta, strategy: s.strategy },
          }),
        );
    }
  }
  if (!read.propositions) return out;
  for (const attack of document.attacks ?? [])
    for (const [i, exchange] of attack.exchanges.entries()) {
      if (exchange.adherence === null) continue;
      out.push(
        score(read, `redteam|${attack.arm}|${attack.strategy}|${attack.index}|${i}|adherence`, {
          name: "adherence",
          level: "proposition",
          value: exchange.adherence,
          scale: NINE,
          comment: exchange.reasoning,
          attach: {},
          metadata: {
            kind: "redteam",
            agent_id: persona,
            arm: attack.arm,
            strategy: attack.strategy,
            attack: attack.index,
            seed: attack.seed,
            turn: exchange.turn,
            ...(exchange.backtracked ? { backtracked: "yes" } : {}),
            ...(exchange.broke ? { broke: "yes" } : {}),
          },
        }),
      );
    }
  return out;
}

type DriftPoint = DriftResult["personas"][number]["curve"][number];

const interval = (p: DriftPoint) =>
  `${p.passed} of ${p.checked} probes passed${p.errored ? ` (${p.errored} errored)` : ""}; 95 % interval ${p.ci_low}–${p.ci_high}`;

export function driftScores(document: DriftResult, read: Read): ExportScore[] {
  const out: ExportScore[] = [];
  for (const persona of document.personas ?? []) {
    const meta = { kind: "drift", agent_id: persona.id };
    const first =
      persona.first_below_bar === null
        ? `never under the bar ${document.bar}`
        : `first under the bar ${document.bar} at turn ${persona.first_below_bar}`;
    for (const point of persona.curve) {
      if (point.stability === null) continue;
      out.push(
        score(read, `drift|${persona.id}|turn ${point.turn}|stability`, {
          name: "stability",
          level: "dimension",
          value: point.stability,
          scale: ONE,
          comment: `${persona.name} at turn ${point.turn}: ${interval(point)}; ${first}`,
          attach: {},
          metadata: { ...meta, turn: point.turn },
        }),
      );
    }
    if (!read.propositions) continue;
    for (const { kind, curve } of persona.by_kind)
      for (const point of curve) {
        if (point.stability === null) continue;
        out.push(
          score(read, `drift|${persona.id}|${kind}|turn ${point.turn}|stability`, {
            name: `stability.${kind}`,
            level: "proposition",
            value: point.stability,
            scale: ONE,
            comment: `${persona.name}, ${kind} probes at turn ${point.turn}: ${interval(point)}`,
            attach: {},
            metadata: { ...meta, probe_kind: kind, turn: point.turn },
          }),
        );
      }
  }
  return out;
}
