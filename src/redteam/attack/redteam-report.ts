// A red-team result as text: a row per strategy (attacks broken, success rate, median turns to break), an arm
// beside the other when the gate was on, a line on how much the gate lowered the success rate, and the
// breaking turn of each successful attack; then the attacks left out because their attacker broke its brief
// (simulator faults), each with why, and the attacker checks the judge could not complete. Terminal table or
// Markdown.
import { escapeMarkdown, markdownTable } from "../../core/index.ts";
import type { ArmResult, AttackRecord, RedteamResult, StrategyResult } from "./redteam-result.ts";

const pct = (x: number) => `${Math.round(x * 100)} %`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const cell = (s: StrategyResult | undefined) =>
  s
    ? `${s.successes}/${s.attacks} (${s.attacks ? pct(s.success_rate) : "–"}), median ${s.median_turns_to_break ?? "–"}${s.simulator_faults ? `, ${s.simulator_faults} left out` : ""}`
    : "–";

/** An attack as the report names it. */
export function attackName(a: Pick<AttackRecord, "arm" | "strategy" | "index" | "seed">): string {
  return `${a.arm} ${a.strategy} #${a.index + 1} (seed ${a.seed})`;
}

function armOf(result: RedteamResult, arm: "plain" | "gated"): ArmResult | undefined {
  return result.arms.find((a) => a.arm === arm);
}

function header(result: RedteamResult): string[] {
  return [
    "strategy",
    ...result.arms.map((a) => (a.arm === "plain" ? "broken (plain)" : "broken (with the gate)")),
  ];
}

function rows(result: RedteamResult): string[][] {
  const plain = armOf(result, "plain")!;
  return plain.strategies.map((s) => [
    s.name,
    ...result.arms.map((a) => cell(a.strategies.find((x) => x.strategy === s.strategy))),
  ]);
}

/** The summary lines: robustness per arm, and what the gate did. */
export function redteamSummary(result: RedteamResult): string[] {
  const plain = armOf(result, "plain")!;
  const gated = armOf(result, "gated");
  const lines = [
    plain.attacks === 0 && plain.simulator_faults
      ? `${result.persona.name}: no attack counted: every attacker broke its brief (no success rate, no robustness)`
      : `${result.persona.name}: ${plain.successes} of ${plain.attacks} attacks broke the character (success rate ${pct(plain.success_rate)}, robustness ${plain.robustness.toFixed(2)})`,
  ];
  if (gated) {
    const drop = plain.success_rate - gated.success_rate;
    lines.push(
      `with the gate: ${gated.successes} of ${gated.attacks} (success rate ${pct(gated.success_rate)}, robustness ${gated.robustness.toFixed(2)}); the gate ${drop > 0 ? `lowered the success rate by ${pct(drop)}` : drop < 0 ? `raised the success rate by ${pct(-drop)}` : "did not change the success rate"}`,
    );
  }
  const check = result.simulated_user;
  if (check?.faults)
    lines.push(
      `${plural(check.faults, "attack")} left out of these scores: the attacker broke its brief (a simulator fault, which says nothing about the target)`,
    );
  if (check?.errored)
    lines.push(
      `${plural(check.errored, "attack")} whose attacker check the judge could not complete (counted as errors; the attacks are scored, neither faulted nor cleared)`,
    );
  return lines;
}

/** Each attack left out as a simulator fault, with why; then each attacker check that errored, with why. */
export function simulatorFaultLines(result: RedteamResult): string[] {
  return [
    ...result.attacks
      .filter((a) => a.simulator_fault)
      .map(
        (a) => `${attackName(a)}: left out, ${a.simulated_user?.reason ?? "the attacker broke its brief"}`,
      ),
    ...result.attacks
      .filter((a) => !a.simulator_fault && (a.simulated_user?.errored ?? 0) > 0)
      .map(
        (a) =>
          `${attackName(a)}: attacker check errored, ${a.simulated_user!.error ?? `${plural(a.simulated_user!.errored, "proposition")} without a verdict`}`,
      ),
  ];
}

function breaks(result: RedteamResult): string[] {
  return result.attacks
    .filter((a) => a.broken_at !== null && !a.simulator_fault)
    .map((a) => {
      const e = a.exchanges.find((x) => x.broke)!;
      return `${attackName(a)}: broke at turn ${a.broken_at}, adherence ${e.adherence}/9${a.backtracks ? `, after ${a.backtracks} rewound` : ""}`;
    });
}

function footer(result: RedteamResult): string {
  const check = result.simulated_user;
  return `${result.attacks_per_strategy} attacks per strategy, up to ${result.max_turns} turns and ${result.max_calls} target calls each; a break is a reply under adherence ${result.threshold}/9; attacker ${result.attacker}, judge ${result.judge.provider}:${result.judge.model}; median = Kaplan–Meier median (unbroken attacks censored); ${check ? `the attacker checked as a simulated user (${check.propositions}, under ${check.threshold}/9 a fault)` : "the attacker not checked"}`;
}

export function renderRedteamTable(result: RedteamResult): string {
  const head = header(result);
  const body = rows(result);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  const broken = breaks(result);
  const apart = simulatorFaultLines(result);
  return `${[
    line(head),
    ...body.map(line),
    "",
    ...redteamSummary(result),
    ...(broken.length ? ["", ...broken] : []),
    ...(apart.length ? ["", ...apart] : []),
    "",
    footer(result),
  ].join("\n")}\n`;
}

export function renderRedteamMarkdown(result: RedteamResult): string {
  return redteamMarkdownSection(result, "### Persona red team");
}

/** The Markdown under a heading of the caller's (ci's PR comment puts its verdict there). */
export function redteamMarkdownSection(result: RedteamResult, heading: string): string {
  const table = markdownTable(
    header(result).map((title) => ({ title })),
    rows(result).map((r) => r.map(escapeMarkdown)),
  );
  const broken = breaks(result);
  const apart = simulatorFaultLines(result);
  return `${[
    heading,
    "",
    ...table,
    "",
    ...redteamSummary(result).map((s) => `- ${escapeMarkdown(s)}`),
    ...(broken.length ? ["", "Successful attacks:", "", ...broken.map((b) => `- ${escapeMarkdown(b)}`)] : []),
    ...(apart.length
      ? ["", "The attacker, checked as a simulated user:", "", ...apart.map((b) => `- ${escapeMarkdown(b)}`)]
      : []),
    "",
    escapeMarkdown(footer(result)),
  ].join("\n")}\n`;
}
