// How pages print numbers, times and links: scores with their scale's precision, times in UTC, and
// links that carry the page's filters (so every view is linkable).
import { type Html, html } from "./html.ts";

/** A file path or a judge spec that may break after each `/` and `:` (never inside a name), escaped. */
export function pathText(path: string): Html {
  const parts = path.split(/(?<=[/:])/);
  return html`${parts.map((part, i) => (i === 0 ? part : html`<wbr>${part}`))}`;
}

/** A 0–9 score with one decimal; an em dash when there is none. */
export function score9(value: number | null | undefined): string {
  return typeof value === "number" && Number.isFinite(value) ? value.toFixed(1) : "—";
}

/** Δ with its sign (a true minus), one decimal; an em dash when either side has no score. */
export function deltaText(delta: number | null): string {
  if (delta === null) return "—";
  const rounded = Number(delta.toFixed(1));
  return `${rounded > 0 ? "+" : rounded < 0 ? "−" : "±"}${Math.abs(rounded).toFixed(1)}`;
}

/**
 * A list's Δ cell: the dimension that fell furthest, by how much, and a regression tag when that fall is one;
 * an em dash titled `missing` (why there is none) without a drop. `against` names what it is measured against.
 */
export function dropCell(
  drop: { dimension: string; delta: number; regression: boolean } | undefined,
  missing: string,
  against?: string,
): Html {
  if (!drop) return html`<td class="num muted" title="${missing}">—</td>`;
  return html`<td class="num${drop.regression ? " regressed" : ""}"${against ? html` title="against the ${against}"` : ""}>${drop.dimension} ${deltaText(drop.delta)}${
    drop.regression ? html` <span class="tag regression">regression</span>` : ""
  }</td>`;
}

/** A 0–1 score with two decimals; an em dash when there is none. */
export function score1(value: number | null | undefined): string {
  return typeof value === "number" && Number.isFinite(value) ? value.toFixed(2) : "—";
}

/** A share as a percentage; an em dash when there is none. */
export function percent(value: number | null | undefined): string {
  return typeof value === "number" && Number.isFinite(value) ? `${Math.round(value * 100)} %` : "—";
}

/** A duration in whole milliseconds (a measured latency is a float of a dozen digits). */
export function milliseconds(value: number): string {
  return `${Math.round(value).toLocaleString("en-US")} ms`;
}

/** An ISO time as `2026-11-03 14:05` (UTC), the way every page prints times. */
export function when(iso: string | null | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace("T", " ")}`;
}

/** The first eight characters of an id, as the CLI prints them. */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

/** A text with its first letter capital: a section or a noun as a title ("sessions" → "Sessions"). */
export function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A path with the given query parameters (those with a value), in a stable order. */
export function hrefWith(
  path: string,
  params: Readonly<Record<string, string | number | undefined>>,
): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== "") query.set(key, String(value));
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/** Any JSON value as short text (assertion values, tool arguments). */
export function jsonText(value: unknown): string {
  if (value === undefined) return "—";
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
  } catch {
    return String(value);
  }
}
