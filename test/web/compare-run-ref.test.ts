// Runs named by the short ids the pages show (issue 48, item 5): a uuid, or its first 8+ characters found
// through the store's id-prefix search; a prefix two runs share is bad input that asks for more characters.
import { describe, expect, it } from "vitest";
import type { RunRow, Store } from "../../src/store/index.ts";
import { PageInputError } from "../../src/web/page-query.ts";
import { findRun, isRunRef } from "../../src/web/run-ref.ts";

const A = "1a2b3c4d-0000-4000-8000-000000000001";
const B = "1a2b3c4d-0000-4000-8000-000000000002";

/** A store with runs A and B, whose search finds by id prefix and also returns a run of an agent named like the query. */
function storeOf(ids: readonly string[]): Store {
  const run = (id: string) => ({ id, agent_id: "dov" }) as RunRow;
  return {
    runs: { get: async (id: string) => (ids.includes(id) ? run(id) : undefined) },
    search: {
      query: async ({ q }: { q: string }) => ({
        runs: {
          hits: [...ids.filter((id) => id.startsWith(q)), "99999999-0000-4000-8000-000000000000"].map(
            (id) => ({ id }),
          ),
          more: false,
        },
      }),
    },
  } as unknown as Store;
}

describe("a run named by a short id", () => {
  it("takes a uuid or 8 to 36 of its first characters, and nothing shorter or not hexadecimal", () => {
    expect(isRunRef(A)).toBe(true);
    expect(isRunRef("1a2b3c4d")).toBe(true);
    expect(isRunRef("1A2B3C4D-00")).toBe(true);
    expect(isRunRef("1a2b3c4")).toBe(false);
    expect(isRunRef("not-a-run")).toBe(false);
  });

  it("finds the one run whose id starts with the prefix, ignoring search hits that do not", async () => {
    await expect(findRun(storeOf([A]), "1A2B3C4D", "a")).resolves.toMatchObject({ id: A });
  });

  it("finds no run for a prefix no id starts with", async () => {
    await expect(findRun(storeOf([A]), "abcdef12", "a")).resolves.toBeUndefined();
  });

  it("refuses a prefix two runs share, naming the parameter and asking for more characters", async () => {
    const error = await findRun(storeOf([A, B]), "1a2b3c4d", "b").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PageInputError);
    expect((error as PageInputError).parameter).toBe("b");
    expect((error as PageInputError).message).toContain("start of 2 runs' ids; give more characters");
  });
});
