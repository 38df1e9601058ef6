// Dashboard sessions signed out before they expired (`signed_out_sessions`): kept in the store, so a
// sign-out holds across restarts and across every server process on one store.
import type { Queryable } from "./db.ts";

export interface SignedOutSessionRepository {
  /** Records a session as signed out until `expiresAt` (ISO 8601); signing it out again changes nothing. */
  add(sessionId: string, expiresAt: string): Promise<void>;
  /** Whether the session was signed out (and is not yet forgotten). */
  has(sessionId: string): Promise<boolean>;
  /** Forgets the sessions that expired by `now` (ISO 8601): their cookies are refused as expired anyway. */
  forgetExpired(now: string): Promise<void>;
}

export function signedOutSessionRepository(db: Queryable): SignedOutSessionRepository {
  return {
    async add(sessionId, expiresAt) {
      await db.query(
        `INSERT INTO signed_out_sessions (session_id, expires_at) VALUES ($1, $2)
         ON CONFLICT (session_id) DO NOTHING`,
        [sessionId, expiresAt],
      );
    },
    async has(sessionId) {
      const result = await db.query("SELECT 1 FROM signed_out_sessions WHERE session_id = $1", [sessionId]);
      return result.rows.length > 0;
    },
    async forgetExpired(now) {
      await db.query("DELETE FROM signed_out_sessions WHERE expires_at <= $1", [now]);
    },
  };
}
