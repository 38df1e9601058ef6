// Escaping of untrusted text (agent messages, names) for the documents we write: Markdown and XML.

/** One line of Markdown-safe text: newlines folded, Markdown and HTML syntax characters escaped. */
export function escapeMarkdown(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ").replace(/[\\`*_{}[\]()<>#+!|~&]/g, (c) => `\\${c}`);
}
