// The list commands of stored kinds (`dramaturg sessions`, `conversations`, `simulations`): the store from the
// flags and the project file, the rows newest first, as a table or JSON.
import { type Command, Option } from "commander";
import type { StoredKind } from "../engine/index.ts";
import { examples } from "./help-examples.ts";

export interface StoredList {
  name: string;
  description: string;
  /** What one row is, in the help and the empty message ("session analyses"). */
  noun: string;
  /** The JSON document's key for the rows. */
  key: string;
  /** The kind listed (loaded when the command runs, not when the program starts): its list and table. */
  kind(): Promise<StoredKind>;
}

/** Registers one list command. */
export function registerStoredList(program: Command, list: StoredList): void {
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
        const kind = await list.kind();
        const rows = await kind.list(store, { limit });
        if (flags.format === "json") {
          process.stdout.write(`${JSON.stringify({ [list.key]: rows }, null, 2)}\n`);
          return;
        }
        if (rows.length === 0) {
          process.stdout.write(`no ${list.noun} in this store\n`);
          return;
        }
        process.stdout.write(kind.listTable(rows));
      } finally {
        await store.close();
      }
    });
}
