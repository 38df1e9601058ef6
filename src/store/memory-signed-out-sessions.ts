// Signed-out sessions of the in-memory store: the table of migration 13 as a map of id → expiry.
import { StoreError } from "../core/index.ts";
import { timestampIn } from "./memory-columns.ts";
import type { SignedOutSessionRepository } from "./signed-out-sessions.ts";

export function memorySignedOutSessions(): SignedOutSessionRepository {
  /** session id → expiry, in microseconds. */
  const expiries = new Map<string, number>();
  return {
    async add(sessionId, expiresAt) {
      if (sessionId === "")
        throw new StoreError(
          `new row for relation "signed_out_sessions" violates check constraint "signed_out_sessions_session_id_check"`,
        );
      const at = timestampIn(expiresAt);
      if (!expiries.has(sessionId)) expiries.set(sessionId, at);
    },
    async has(sessionId) {
      return expiries.has(sessionId);
    },
    async forgetExpired(now) {
      const at = timestampIn(now);
      for (const [id, expires] of expiries) if (expires <= at) expiries.delete(id);
    },
  };
}
