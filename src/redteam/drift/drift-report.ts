// A drift result as text: a row per probed turn, a column per persona (stability and its interval), the
// first turn under the bar per persona, and the probe kinds that fell there. Terminal table or Markdown.
import { escapeMarkdown, markdownTable } from "../../core/index.ts";
import type { DriftPoint, DriftResult } from "./drift-result.ts";

const cell = (p: DriftPoint | undefined) =>
  !p || p.stability === null
    ? "–"
    : `${p.stability.toFixed(2)} [${p.ci_low!.toFixed(2)}–${p.ci_high!.toFixed(2)}]${p.errored ? ` (${p.errored} errored)` : ""}`;

function rows(result: DriftResult): string[][] {
  return result.probed_turns.map((turn) => [
    String(turn),
    ...result.personas.map((persona) => cell(persona.curve.find((p) => p.turn === turn))),
  ]);
}

/** The kinds whose stability is under the bar at a persona's first drop, worst first. */
function fallenKinds(result: DriftResult, persona: DriftResult["personas"][number]): string {
  const turn = persona.first_below_bar;
  if (turn === null) return "";
  const kinds = persona.by_kind
    .map((k) => ({ kind: k.kind, p: k.curve.find((p) => p.turn === turn) }))
    .filter((k) => k.p && k.p.stability !== null && k.p.stability < result.bar)
    .sort((a, b) => a.p!.stability! - b.p!.stability! || a.kind.localeCompare(b.kind));
  return kinds.length ? ` (${kinds.map((k) => `${k.kind} ${k.p!.stability!.toFixed(2)}`).join(", ")})` : "";
}

function summary(result: DriftResult, name: (s: string) => string): string[] {
  return result.personas.map((persona) =>
    persona.first_below_bar === null
      ? `${name(persona.name)}: never below ${result.bar}`
      : `${name(persona.name)}: first below ${result.bar} at turn ${persona.first_below_bar}${fallenKinds(result, persona)}`,
  );
}

function footer(result: DriftResult): string {
  return `${result.probes.count} probes (${result.probes.source}) after turns ${result.probed_turns.join(", ")} of ${result.turns}, seeds ${result.seeds.join(", ")}, partner ${result.partner}; stability = share of probes passed, [95 % Wilson interval over seeds × probes]`;
}

export function renderDriftTable(result: DriftResult): string {
  const header = ["turn", ...result.personas.map((p) => p.name)];
  const body = rows(result);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return `${[line(header), ...body.map(line), "", ...summary(result, (s) => s), footer(result)].join("\n")}\n`;
}

export function renderDriftMarkdown(result: DriftResult): string {
  const table = markdownTable(
    [{ title: "turn", right: true }, ...result.personas.map((p) => ({ title: escapeMarkdown(p.name) }))],
    rows(result),
  );
  return `${[
    "### Drift turn by turn",
    "",
    ...table,
    "",
    ...summary(result, escapeMarkdown).map((s) => `- ${s}`),
    "",
    escapeMarkdown(footer(result)),
  ].join("\n")}\n`;
}
