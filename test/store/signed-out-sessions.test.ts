// signed_out_sessions: dashboard sessions signed out before they expired, refused until that expiry on every
// backend, kept when the store is opened again, and forgotten once expired.
import { expect, test } from "vitest";
import { StoreError } from "../../src/core/index.ts";
import { openStore } from "../../src/store/index.ts";
import { describeStore } from "./backends.ts";

// Each test uses later times than the one before, so forgetting in one leaves the next one's rows alone.
const ONE = "2026-05-01T13:00:00.000Z";

describeStore("signed-out sessions", ({ kind, store, freshLocation }) => {
  test("a signed-out session is known as such, and another session is not", async () => {
    await store().signedOutSessions.add("s-out", ONE);
    expect(await store().signedOutSessions.has("s-out")).toBe(true);
    expect(await store().signedOutSessions.has("s-still-in")).toBe(false);
  });

  test("signing a session out twice keeps it once, with its first expiry", async () => {
    const sessions = store().signedOutSessions;
    await sessions.add("s-twice", "2027-01-01T00:00:00Z");
    await sessions.add("s-twice", "2027-06-01T00:00:00Z");
    await sessions.forgetExpired("2027-01-01T00:00:00Z");
    expect(await sessions.has("s-twice")).toBe(false);
  });

  test("forgetting expired sessions removes those expired by then and keeps the others", async () => {
    const sessions = store().signedOutSessions;
    await sessions.add("s-early", "2028-01-01T12:00:00Z");
    await sessions.add("s-late", "2028-01-01T14:00:00Z");
    await sessions.forgetExpired("2028-01-01T13:00:00Z");
    expect(await sessions.has("s-early")).toBe(false);
    expect(await sessions.has("s-late")).toBe(true);
  });

  test("an empty session id is refused", async () => {
    await expect(store().signedOutSessions.add("", ONE)).rejects.toSatisfy(StoreError.isInstance);
  });

  test.skipIf(kind === "memory")("a sign-out is kept when the store is opened again", async () => {
    const location = await freshLocation();
    const first = await openStore(location);
    await first.signedOutSessions.add("s-kept", ONE);
    await first.close();
    const again = await openStore(location);
    try {
      expect(await again.signedOutSessions.has("s-kept")).toBe(true);
    } finally {
      await again.close();
    }
  });
});
