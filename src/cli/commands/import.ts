// `dramaturg import`: stores a transcript's agents and messages so later evaluations can read them; a file that
// is not a transcript (a trace export, an Inspect log) is read as sessions and turned into one first.
import { basename } from "node:path";
import { loadTranscripts } from "../../core/index.ts";
import { openStore } from "../../store/index.ts";
import { resolveSettings } from "../settings.ts";
import { warnOfUnmarkedSenders } from "../unmarked-senders.ts";

export async function importCommand(
  files: string[],
  flags: { db?: string; source?: string; config?: string; from?: string },
): Promise<number> {
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  const { readTranscriptSources } = await import("../transcript-sources.ts");
  const sources = await readTranscriptSources(files, { from: flags.from });
  const read = sources.files;
  const transcript = sources.transcript ?? loadTranscripts(read).transcript;
  warnOfUnmarkedSenders(transcript);
  const store = await openStore(settings.db);
  try {
    await store.agents.upsert(transcript.agents);
    const source = flags.source ?? read.map((f) => basename(f)).join(",");
    const { inserted, skipped } = await store.messages.import(source, transcript.messages);
    process.stdout.write(
      `imported ${inserted} messages (${skipped} already stored) and ${transcript.agents.length} agents from ${read.join(", ")} into ${store.location}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}
