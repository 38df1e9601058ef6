// The names of the formats sessions are read from, apart from their importers: what `--from` and the API's
// `from` accept, known to the CLI's help without loading a parser. importers/index.ts holds them in this order.

/** The formats `--from` (and the API's `from`) name, in the order they are tried. */
export const SESSION_FORMATS = [
  "session",
  "openai",
  "openai-agents",
  "otlp",
  "tau-bench",
  "tau2-bench",
  "langfuse",
  "langsmith",
  "inspect",
] as const;
