// The evaluation result document `dramaturg.eval-result/v1` and its table and Markdown renderings.
import {
  type ErrorReason,
  escapeMarkdown,
  formatErrorReasons,
  markdownTable,
  round,
  shownPath,
  type TokenUsage,
} from "../core/index.ts";
import type { EngineTotals } from "../engine/index.ts";
import type { AgentResult, DimensionResult, EnvironmentResult } from "./aggregate.ts";

export const EVAL_RESULT_FORMAT = "dramaturg.eval-result/v1";

export interface RunResult extends AgentResult {
  run_id: string;
  status: "pending" | "running" | "completed" | "failed";
  token_usage: TokenUsage;
}

export interface EvalResult {
  format: typeof EVAL_RESULT_FORMAT;
  evaluation_id: string;
  status: "completed" | "failed";
  source: string;
  judge: {
    provider: string;
    model: string;
    temperature?: number;
    prompt_version: string;
    mode: string;
    trials: number;
  };
  dimensions: string[];
  runs: RunResult[];
  environments: EnvironmentResult[];
  /** The engine's totals of this invocation (requests, calls, tokens, cache, resume) and the verdicts'. */
  totals: EngineTotals & {
    /** Verdicts that gave a score or count; errored ones are not among them. */
    verdicts: number;
    errored: number;
    /** Why verdicts errored, most frequent reason first (`summarizeErrors`); present when any errored. */
    error_reasons?: ErrorReason[];
  };
  /**
   * The proposition sets applied: agent → dimension → the files merged (or `builtin:<dimension>`), and
   * the same per channel dimension. Absent in results stored by older versions.
   */
  propositions?: {
    agents: Record<string, Record<string, string[]>>;
    environment: Record<string, string[]>;
  };
  warnings: string[];
}

const AGENT_COLUMNS = ["adherence", "consistency", "fluency"] as const;

function fmt(value: number | null | undefined, digits = 2): string {
  return value === null || value === undefined ? "–" : round(value, digits).toFixed(digits);
}

function pad(cells: string[][]): string {
  const widths: number[] = [];
  for (const row of cells) for (const [i, c] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, c.length);
  return cells
    .map((row) =>
      row
        .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** The lowest-scoring propositions across agents (score < 7), for "what to fix". */
export function weakestPropositions(result: EvalResult, limit = 5) {
  const rows: {
    who: string;
    dimension: string;
    id: string;
    score: number;
    recommendation?: string;
    inverted: boolean;
  }[] = [];
  const collect = (who: string, dimension: string, d: DimensionResult | undefined) => {
    for (const p of d?.propositions ?? [])
      if (p.score !== null && p.score < 7)
        rows.push({
          who,
          dimension,
          id: p.id,
          score: p.score,
          recommendation: p.recommendations_for_improvement,
          inverted: p.inverted,
        });
  };
  for (const r of result.runs) for (const dim of AGENT_COLUMNS) collect(r.name, dim, r.dimensions[dim]);
  for (const e of result.environments) collect(`#${e.channel}`, "convergence", e.dimensions.convergence);
  return rows.sort((a, b) => a.score - b.score).slice(0, limit);
}

/** True when verdicts were asked for and none came back: the result has no score at all. */
export function everyVerdictErrored(result: EvalResult): boolean {
  return result.totals.verdicts === 0 && result.totals.errored > 0;
}

/** The plain-text error block: `errors: 38 × <reason>  e.g. <example>`, one reason a line. */
function errorLines(reasons: readonly ErrorReason[], label: string): string[] {
  const indent = " ".repeat(label.length + 1);
  return formatErrorReasons(reasons).map((line, i) => `${i === 0 ? `${label} ` : indent}${line}`);
}

/**
 * The proposition sets applied, per dimension: every file merged for some agent or channel (or
 * `builtin:<dimension>`), in first-seen order. Empty for results stored before this was recorded.
 */
export function propositionSetsApplied(result: EvalResult): { dimension: string; sources: string[] }[] {
  const applied = result.propositions;
  if (!applied) return [];
  return result.dimensions.flatMap((dimension) => {
    const sources = new Set<string>();
    for (const sets of Object.values(applied.agents)) for (const s of sets[dimension] ?? []) sources.add(s);
    for (const s of applied.environment[dimension] ?? []) sources.add(s);
    return sources.size
      ? [{ dimension, sources: [...sources].map((s) => (s.startsWith("builtin:") ? s : shownPath(s))) }]
      : [];
  });
}

/** What the renderings add around the result: the thresholds it is held to, and where it is kept. */
export interface RenderOptions {
  /** Per-dimension minimum scores (`thresholds.minimum`), named in the legend. */
  minimum?: Readonly<Partial<Record<string, number>>>;
  /** Where the evaluation is stored (a location safe to print); `kept: false` for `memory://`. */
  stored?: { location: string; kept: boolean };
}

/** One line on what the numbers mean: the scale, its direction, and the minimums in force. */
export function legendLine(result: EvalResult, { minimum = {} }: RenderOptions = {}): string {
  const parts = ["Scores are 0–9, higher is better"];
  if (result.dimensions.includes("convergence"))
    parts.push("voice divergence: higher = more distinct voices");
  if (result.dimensions.includes("ideas_quantity"))
    parts.push("ideas: a count of distinct ideas, not a score");
  const minimums = Object.entries(minimum).filter(([, v]) => v !== undefined);
  parts.push(
    minimums.length
      ? `minimum ${minimums.map(([d, v]) => `${d} ${v}`).join(", ")} (thresholds.minimum)`
      : "no minimum set (thresholds.minimum in dramaturg.yaml)",
  );
  return `${parts.join("; ")}.`;
}

/** Where the evaluation went and how to see it again; undefined when the caller did not say. */
export function storedLine(result: EvalResult, { stored }: RenderOptions = {}): string | undefined {
  if (!stored) return undefined;
  const id = result.evaluation_id.slice(0, 8);
  return stored.kept
    ? `Stored as evaluation ${id} in ${stored.location}; \`dramaturg show ${id}\` prints it again.`
    : `Not kept: ${stored.location} holds nothing once this command ends (use a folder or postgres:// to keep runs).`;
}

/** The result as the terminal table: scores per agent and channel, the weakest propositions, totals. */
export function renderTable(result: EvalResult, options: RenderOptions = {}): string {
  const out: string[] = [];
  const j = result.judge;
  out.push(
    `Persona evaluation ${result.evaluation_id.slice(0, 8)} · ${result.source} · judge ${j.provider}:${j.model} (${j.mode}${j.trials > 1 ? `, ${j.trials} trials` : ""})`,
  );
  out.push("");
  const reasons = result.totals.error_reasons ?? [];
  // With no score at all the tables below are empty dashes; why the judge failed is the one thing to read.
  if (everyVerdictErrored(result)) {
    out.push(`Every verdict errored (${result.totals.errored}); the judge gave no scores.`);
    if (reasons.length) out.push(...errorLines(reasons, "errors:"));
    out.push("");
  }
  if (result.runs.length) {
    const rows = [["agent", "sample", ...AGENT_COLUMNS, "overall", "errored"]];
    for (const r of result.runs)
      rows.push([
        r.name,
        String(r.sample_size),
        ...AGENT_COLUMNS.map((d) => (r.dimensions[d] ? fmt(r.dimensions[d]!.score) : "")),
        fmt(r.overall_score),
        String(r.errored),
      ]);
    out.push(pad(rows));
    out.push("");
  }
  if (result.environments.length) {
    const rows = [["channel", "voice divergence", "ideas", "errored"]];
    for (const e of result.environments) {
      const c = e.dimensions.convergence;
      const i = e.dimensions.ideas_quantity;
      rows.push([
        `#${e.channel}`,
        c ? fmt(c.score) : "",
        i ? (i.count === null ? "–" : String(i.count)) : "",
        String((c?.errored ?? 0) + (i?.errored ?? 0)),
      ]);
    }
    out.push(pad(rows));
    out.push("");
  }
  if (!everyVerdictErrored(result)) out.push(legendLine(result, options), "");
  const weak = weakestPropositions(result);
  if (weak.length) {
    out.push("Weakest propositions:");
    for (const w of weak)
      out.push(
        `  ${fmt(w.score)}  ${w.who} · ${w.dimension} · ${w.id}${w.inverted ? " (inverted)" : ""}${w.recommendation ? `\n        → ${w.recommendation}` : ""}`,
      );
    out.push("");
  }
  const t = result.totals;
  const parts = [
    `${t.verdicts} verdicts`,
    `${t.errored} errored`,
    `${t.requests} judge requests`,
    `${t.token_usage.input_tokens} input / ${t.token_usage.output_tokens} output tokens`,
  ];
  if (t.cache)
    parts.push(
      `cache: ${t.cache.hits} hits saved ${t.cache.saved_calls} calls and ${t.cache.saved_tokens.input_tokens + t.cache.saved_tokens.output_tokens} tokens`,
    );
  if (t.resumed) parts.push(`resumed: ${t.resumed.reused_verdicts} verdicts reused`);
  out.push(parts.join(" · "));
  if (t.cache?.reused_from)
    out.push(
      `reused: unchanged since evaluation ${t.cache.reused_from.slice(0, 8)}; its verdicts were copied whole`,
    );
  if (t.errored > 0) out.push(`warning: ${t.errored} verdicts errored and were left out of the scores`);
  if (t.errored > 0 && !everyVerdictErrored(result) && reasons.length)
    out.push(...errorLines(reasons, "errors:"));
  for (const w of result.warnings) out.push(`warning: ${w}`);
  const applied = propositionSetsApplied(result);
  if (applied.length) {
    out.push("", "Propositions applied:");
    const width = Math.max(...applied.map((a) => a.dimension.length));
    for (const a of applied) out.push(`  ${a.dimension.padEnd(width)}  ${a.sources.join(", ")}`);
  }
  const where = storedLine(result, options);
  if (where) out.push("", where);
  return out.join("\n");
}

/** The Markdown error block: a bullet per reason, after a headline that is loud when nothing was scored. */
function markdownErrors(result: EvalResult): string[] {
  const reasons = result.totals.error_reasons ?? [];
  if (result.totals.errored === 0) return [];
  const headline = everyVerdictErrored(result)
    ? `**Every verdict errored (${result.totals.errored}); the judge gave no scores.**`
    : "Why verdicts errored:";
  if (!reasons.length) return everyVerdictErrored(result) ? [headline] : [];
  return [headline, "", ...formatErrorReasons(reasons).map((line) => `- ${escapeMarkdown(line)}`)];
}

/** The result as Markdown, for a pull-request comment or a job summary. */
export function renderMarkdown(result: EvalResult, options: RenderOptions = {}): string {
  const out: string[] = [];
  const j = result.judge;
  out.push(`### Persona evaluation \`${result.evaluation_id.slice(0, 8)}\``);
  out.push("");
  out.push(
    `Source \`${escapeMarkdown(result.source)}\` · judge \`${j.provider}:${escapeMarkdown(j.model)}\` · ${j.mode} mode`,
  );
  out.push("");
  if (everyVerdictErrored(result)) out.push(...markdownErrors(result), "");
  if (result.runs.length) {
    const right = (title: string) => ({ title, right: true });
    out.push(
      ...markdownTable(
        [{ title: "agent" }, ...["sample", ...AGENT_COLUMNS, "overall", "errored"].map(right)],
        result.runs.map((r) => [
          escapeMarkdown(r.name),
          String(r.sample_size),
          ...AGENT_COLUMNS.map((d) => (r.dimensions[d] ? fmt(r.dimensions[d]!.score) : "")),
          fmt(r.overall_score),
          String(r.errored),
        ]),
      ),
      "",
    );
  }
  if (result.environments.length) {
    out.push(
      ...markdownTable(
        [{ title: "channel" }, { title: "voice divergence", right: true }, { title: "ideas", right: true }],
        result.environments.map((e) => [
          `#${escapeMarkdown(e.channel)}`,
          fmt(e.dimensions.convergence?.score),
          String(e.dimensions.ideas_quantity?.count ?? "–"),
        ]),
      ),
      "",
    );
  }
  if (!everyVerdictErrored(result)) out.push(`_${escapeMarkdown(legendLine(result, options))}_`, "");
  const weak = weakestPropositions(result);
  if (weak.length) {
    out.push("<details><summary>Weakest propositions</summary>");
    out.push("");
    for (const w of weak)
      out.push(
        `- **${fmt(w.score)}** ${escapeMarkdown(w.who)} · ${w.dimension} · \`${w.id}\`${w.recommendation ? ` — ${escapeMarkdown(w.recommendation)}` : ""}`,
      );
    out.push("");
    out.push("</details>");
  }
  out.push(`${result.totals.verdicts} verdicts, ${result.totals.errored} errored.`);
  const errors = everyVerdictErrored(result) ? [] : markdownErrors(result);
  if (errors.length) out.push("", ...errors);
  const applied = propositionSetsApplied(result);
  if (applied.length)
    out.push(
      "",
      "<details><summary>Propositions applied</summary>",
      "",
      ...applied.map(
        (a) => `- ${a.dimension}: ${a.sources.map((s) => `\`${escapeMarkdown(s)}\``).join(", ")}`,
      ),
      "",
      "</details>",
    );
  const where = storedLine(result, options);
  if (where) out.push("", escapeMarkdown(where));
  return out.join("\n");
}
