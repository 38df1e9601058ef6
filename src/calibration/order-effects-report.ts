// Prints a batch-mode bias measurement (`OrderEffects`, `calibrate --order-effects`) for a person: each
// condition's agreement and cost, how far batching and position move the scores, by place in the call and by
// proposition, and the largest moves; as a terminal table or Markdown for a pull request. Pure.

import { padColumns } from "../regression/index.ts";
import type {
  OrderEffect,
  OrderEffectCondition,
  OrderEffects,
  OrderEffectsCondition,
  ScoreMove,
  ScoreShift,
} from "./order-effects.ts";

const CONDITION_NAMES: Record<OrderEffectCondition, string> = {
  individual: "individual",
  batch: "batch",
  batch_shuffled: "batch, shuffled",
};

const fixed = (value: number | null, digits = 2) => (value === null ? "–" : value.toFixed(digits));
const signed = (value: number | null) =>
  value === null ? "–" : `${value > 0 ? "+" : value < 0 ? "−" : ""}${Math.abs(value).toFixed(2)}`;
const share = (value: number | null) => (value === null ? "–" : `${Math.round(value * 100)}%`);
const ordinal = (n: number) => {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${suffix}`;
};

const CONDITION_COLUMNS = [
  "condition",
  "n",
  "κ",
  "MAE",
  "bias",
  "exact",
  "requests",
  "calls",
  "tokens",
  "errored",
];

function conditionCells(c: OrderEffectsCondition): string[] {
  return [
    CONDITION_NAMES[c.condition],
    c.n_judged === c.n ? String(c.n) : `${c.n_judged}/${c.n}`,
    fixed(c.kappa_quadratic) +
      (c.ci?.kappa_quadratic
        ? ` [${fixed(c.ci.kappa_quadratic[0])}, ${fixed(c.ci.kappa_quadratic[1])}]`
        : ""),
    fixed(c.mae),
    signed(c.bias),
    share(c.exact),
    String(c.requests),
    String(c.calls),
    String(c.token_usage.input_tokens + c.token_usage.output_tokens),
    String(c.errored),
  ];
}

const EFFECT_COLUMNS = ["effect", "n", "mean Δ", "mean |Δ|", "changed"];

const shiftCells = (s: ScoreShift) => [
  String(s.n),
  signed(s.mean_delta),
  fixed(s.mean_abs_delta),
  share(s.changed),
];

const effectName = (e: OrderEffect) =>
  `${e.from === "individual" ? "batching" : "position"} (${CONDITION_NAMES[e.to]} − ${CONDITION_NAMES[e.from]})`;

function describeMove(m: ScoreMove): string {
  const target =
    m.message_id !== undefined
      ? `message ${m.message_id}`
      : m.agent_id !== undefined
        ? `agent ${m.agent_id}`
        : `channel ${m.channel}`;
  return `${m.dimension}/${m.proposition_id} on ${target}: ${m.from} → ${m.to}`;
}

/** Each proposition's two effects side by side, in the document's (dimension, proposition) order. */
function propositionRows(effects: OrderEffects): string[][] {
  const position = new Map(
    effects.position.propositions.map((p) => [`${p.dimension}/${p.proposition_id}`, p]),
  );
  return effects.batching.propositions.map((b) => {
    const p = position.get(`${b.dimension}/${b.proposition_id}`);
    return [
      b.dimension,
      b.proposition_id,
      String(b.n),
      signed(b.mean_delta),
      fixed(b.mean_abs_delta),
      p ? signed(p.mean_delta) : "–",
      p ? fixed(p.mean_abs_delta) : "–",
    ];
  });
}

const PROPOSITION_COLUMNS = ["dimension", "proposition", "n", "batching Δ", "|Δ|", "position Δ", "|Δ|"];

function notes(effects: OrderEffects): string[] {
  const out = [
    "Judged straight through the judge, never the verdict cache: a cached verdict does not move with the batch or the order.",
    `Scores are raw claim scores 0–9${effects.trials > 1 ? `, each the mean of ${effects.trials} trials rounded half up` : ""}; Δ is the second condition's score minus the first's.`,
    `The effects are over the ${effects.batched_items} item(s) that shared a batch call with another claim.`,
  ];
  if (effects.alone_items > 0)
    out.push(
      `${effects.alone_items} item(s) were alone in their batch call, asked as individually: neither batching nor position can move them, so they are in no effect.`,
    );
  if (effects.unasked_items > 0)
    out.push(
      `${effects.unasked_items} item(s) were not asked of the judge (scored without it, or not planned).`,
    );
  if (effects.unmoved_by_shuffle > 0)
    out.push(
      `${effects.unmoved_by_shuffle} batched verdict(s) kept their place when their call was shuffled.`,
    );
  return out;
}

function positionLine(effects: OrderEffects): string {
  const places = effects.position.by_position.filter((p) => p.n > 0);
  if (places.length === 0) return "By place in the call: no batched claim was scored.";
  return `By place in the call, against the same claim judged alone: ${places
    .map((p) => `${ordinal(p.position)} ${signed(p.mean_delta)} (n ${p.n})`)
    .join(", ")}`;
}

/** The terminal text. */
export function renderOrderEffects(effects: OrderEffects): string {
  const out: string[] = [
    `Order effects of ${effects.judge.provider}:${effects.judge.model} on ${effects.items} labelled item(s) (shuffle seed ${effects.seed})`,
    "",
    padColumns([CONDITION_COLUMNS, ...effects.conditions.map(conditionCells)]),
    "",
    padColumns([
      EFFECT_COLUMNS,
      [effectName(effects.batching), ...shiftCells(effects.batching)],
      [effectName(effects.position), ...shiftCells(effects.position)],
    ]),
    "",
    positionLine(effects),
  ];
  const rows = propositionRows(effects);
  if (rows.length > 0) out.push("", padColumns([PROPOSITION_COLUMNS, ...rows]));
  for (const effect of [effects.batching, effects.position])
    if (effect.largest_moves.length > 0) {
      out.push("", `Largest moves, ${effectName(effect)}:`);
      for (const m of effect.largest_moves) out.push(`  ${describeMove(m)}`);
    }
  out.push("", ...notes(effects));
  return `${out.join("\n")}\n`;
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\s+/g, " ").trim();
const table = (rows: string[][]) =>
  [rows[0]!, rows[0]!.map(() => "---"), ...rows.slice(1)]
    .map((r) => `| ${r.map(cell).join(" | ")} |`)
    .join("\n");

/** Markdown for a pull request. */
export function renderOrderEffectsMarkdown(effects: OrderEffects): string {
  const out: string[] = [
    `### Order effects of \`${effects.judge.provider}:${effects.judge.model}\``,
    "",
    `${effects.items} labelled item(s), judged individually, in batches, and in batches with each call's claims shuffled (seed ${effects.seed}).`,
    "",
    table([CONDITION_COLUMNS, ...effects.conditions.map(conditionCells)]),
    "",
    table([
      EFFECT_COLUMNS,
      [effectName(effects.batching), ...shiftCells(effects.batching)],
      [effectName(effects.position), ...shiftCells(effects.position)],
    ]),
    "",
    positionLine(effects),
  ];
  const rows = propositionRows(effects);
  if (rows.length > 0)
    out.push(
      "",
      "<details><summary>By proposition</summary>",
      "",
      table([PROPOSITION_COLUMNS, ...rows]),
      "",
      "</details>",
    );
  for (const effect of [effects.batching, effects.position])
    if (effect.largest_moves.length > 0)
      out.push(
        "",
        `Largest moves, ${effectName(effect)}:`,
        "",
        ...effect.largest_moves.map((m) => `- ${cell(describeMove(m))}`),
      );
  out.push("", ...notes(effects).map((n) => `_${n}_`));
  return `${out.join("\n")}\n`;
}
