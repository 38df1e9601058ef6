// The one way pages make markup: Hono's `html` tagged template, which escapes every interpolated value
// (agent and user text is untrusted) unless it is itself markup made here. Synchronous by construction.
import { html as honoHtml } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

/** Markup made by {@link html}: safe to interpolate into more markup without escaping it twice. */
export type Html = HtmlEscapedString;

/** What a template may interpolate: text and numbers (escaped), markup, lists of them, or nothing. */
export type Fragment = Html | string | number | boolean | null | undefined | readonly Fragment[];

/**
 * Markup from a template: every `${value}` that is not markup made here is escaped (`&<>"'`), so a
 * message reading `<script>` shows as text. Pages never interpolate promises, so the result is a string.
 */
export function html(strings: TemplateStringsArray, ...values: readonly Fragment[]): Html {
  const out = honoHtml(strings, ...values);
  if (out instanceof Promise) throw new TypeError("html: a page interpolated a promise; await it first");
  return out;
}
