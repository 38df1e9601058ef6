// Escaping of untrusted text (agent messages, names) for the documents we write: Markdown and XML.

/** One line of Markdown-safe text: newlines folded, Markdown and HTML syntax characters escaped. */
export function escapeMarkdown(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ").replace(/[\\`*_{}[\]()<>#+!|~&]/g, (c) => `\\${c}`);
}

/** A Markdown table's lines: header, separator (`---:` for a right-aligned column) and rows of ready cells. */
export function markdownTable(
  columns: readonly { title: string; right?: boolean }[],
  rows: readonly (readonly string[])[],
): string[] {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [
    line(columns.map((c) => c.title)),
    `|${columns.map((c) => (c.right ? "---:" : "---")).join("|")}|`,
    ...rows.map(line),
  ];
}

/** Text for XML (SVG) content and attribute values: markup characters escaped, characters XML 1.0 cannot hold dropped. */
export function escapeXml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(
      /[&<>"']/g,
      (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!,
    );
}
