// The list commands of stored kinds (`dramaturg sessions`, `conversations`, `simulations`): the store from the
// flags and the project file, the rows newest first, as a table or JSON.
import { type Command, Option } from "commander";
import type { Store } from "../store/index.ts";
import { examples } from "./help-examples.ts";

export interface StoredList<R extends { id: string; created_at: string; status: string }> {
  name: string;
  description: string;
  /** What one row is, in the help and the empty message ("session analyses"). */
  noun: string;
  /** The JSON document's key for the rows. */
  key: string;
  load(store: Store, limit: number): Promise<R[]>;
  /** The table's header after `id  created  status`, and each row's cells after them. */
  header: string;
  cells(row: R): string;
}

/** Registers one list command. */
export function registerStoredList<R extends { id: string; created_at: string; status: string }>(
  program: Command,
  list: StoredList<R>,
): void {
  program
    .command(list.name)
    .description(list.description)
    .addOption(new Option("--format <format>", "output format").choices(["table", "json"]).default("table"))
    .option("--limit <n>", `at most this many ${list.noun}`, "50")
    .option("--db <location>", "store location (default .dramaturg)")
    .option("--config <file>", "project file to use")
    .addHelpText("after", examples(`dramaturg ${list.name}`, "dramaturg show 3f2a91c0"))
    .action(async (flags: { format: string; limit: string; db?: string; config?: string }) => {
      const [{ resolveSettings }, { limitFlag }, { openStore, storeExists }, { InputError }] =
        await Promise.all([
          import("./settings.ts"),
          import("./flags.ts"),
          import("../store/index.ts"),
          import("../core/index.ts"),
        ]);
      const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
      const limit = limitFlag(flags.limit, 50);
      if (!storeExists(settings.db))
        throw new InputError("no store here to list from", { place: settings.db });
      const store = await openStore(settings.db);
      try {
        const rows = await list.load(store, limit);
        if (flags.format === "json") {
          process.stdout.write(`${JSON.stringify({ [list.key]: rows }, null, 2)}\n`);
          return;
        }
        if (rows.length === 0) {
          process.stdout.write(`no ${list.noun} in this store\n`);
          return;
        }
        const lines = [`id        created              status     ${list.header}`];
        for (const r of rows) {
          const created = new Date(r.created_at).toISOString().slice(0, 19).replace("T", " ");
          lines.push(`${r.id.slice(0, 8)}  ${created}  ${r.status.padEnd(9)}  ${list.cells(r)}`);
        }
        process.stdout.write(`${lines.join("\n")}\n`);
      } finally {
        await store.close();
      }
    });
}
