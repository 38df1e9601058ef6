// judge_rate_limits: a key's place in its limit, moved on by each call in one statement on the database's
// clock. (Three processes holding one limit together, 429s included: test/rate-limit/shared-rate-limit.test.ts.)
import { expect, test } from "vitest";
import { judgeRateLimitRepository } from "../../src/store/index.ts";
import { describeStore } from "./backends.ts";

const charge = { requestMs: 60_000, tokensMs: 0, burstMs: 100 };

describeStore(
  "a judge's rate limit kept in the database",
  ({ db }) => {
    test("a key's first call goes at once; the next waits for its place, less the burst", async () => {
      const limits = judgeRateLimitRepository(db());
      expect(await limits.acquire("spacing", charge)).toBe(0);
      const wait = await limits.acquire("spacing", charge);
      expect(wait).toBeGreaterThan(59_000);
      expect(wait).toBeLessThanOrEqual(59_900);
      // Another key is another limit.
      expect(await limits.acquire("spacing-other", charge)).toBe(0);
    });

    test("a call's tokens move the key on as its requests do", async () => {
      const limits = judgeRateLimitRepository(db());
      await limits.acquire("tokens", { requestMs: 0, tokensMs: 30_000, burstMs: 0 });
      expect(await limits.acquire("tokens", { requestMs: 0, tokensMs: 0, burstMs: 0 })).toBeGreaterThan(
        29_000,
      );
    });

    test("a pause holds every call on the key until it ends; a shorter one does not shorten it", async () => {
      const limits = judgeRateLimitRepository(db());
      await limits.pause("paused", 30_000);
      await limits.pause("paused", 1_000);
      const wait = await limits.acquire("paused", { requestMs: 10, tokensMs: 0, burstMs: 0 });
      expect(wait).toBeGreaterThan(29_000);
      expect(wait).toBeLessThanOrEqual(30_000);
    });
  },
  { sqlOnly: "a limit shared between processes lives in a database; one process's is the judge's own" },
);
