// The tracing tools scores are exported to (`dramaturg export --to`, `export:` rules, an online rule's `export`).
// In core because the online rules (below export/) name them in their schema as export/ does in its CLI check.

export const EXPORT_TARGETS = ["langfuse", "phoenix", "otlp"] as const;
export type ExportTarget = (typeof EXPORT_TARGETS)[number];
