// The session format itself (and ReAsk's sessions): one session object, or a list of them.
import type { SessionInput } from "../session-format.ts";
import type { SessionImporter } from "./importer.ts";

const isSession = (v: unknown) =>
  typeof v === "object" &&
  v !== null &&
  Array.isArray((v as { agents?: unknown }).agents) &&
  Array.isArray((v as { turns?: unknown }).turns);

export const sessionImporter: SessionImporter = {
  name: "session",
  detect: (value) =>
    isSession(value) ||
    (typeof value === "object" &&
      value !== null &&
      (value as { format?: unknown }).format === "dramaturg.session/v1") ||
    (Array.isArray(value) && value.length > 0 && value.every(isSession)),
  import: (value) => ({ sessions: (Array.isArray(value) ? value : [value]) as SessionInput[], notes: [] }),
};
