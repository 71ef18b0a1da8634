// The pages' sessions as saved (http/pages/session.ts adapts them to express-session's Store
// contract): a session's data under its id, and, once signed in, its entry in its user's index (the
// sessions list on /account, Accounts.endSessions). Only a sign-in makes one (docs/http-api.md#pages).
import type { SessionOwner, Store } from "../store/port.js";
import type { IdentityEvents } from "./identity-events.js";

export type { SessionOwner };

export class PageSessions {
  constructor(
    private readonly store: Store,
    /** Tells the user's apps that a signed-in session ended (docs/events.md). */
    private readonly identity?: IdentityEvents,
  ) {}

  /** The session's saved data (JSON), or null when there is none. */
  read(sid: string): Promise<string | null> {
    return this.store.sessions.get(sid);
  }

  /** Saves the session for ttlSeconds; with owner, also its entry in the owner's index. */
  save(sid: string, data: string, ttlSeconds: number, owner?: SessionOwner): Promise<void> {
    return this.store.sessions.set(sid, data, ttlSeconds, owner);
  }

  /**
   * Ends the session; with userId (a signed-in session: a sign-out), also drops its entry from the
   * user's index at once, and the user's apps hear `session.ended` (a logout token for this sid).
   */
  async end(sid: string, userId?: string): Promise<void> {
    await this.store.sessions.destroy(sid, userId);
    if (userId !== undefined) this.identity?.sessionsEnded(userId, [sid]);
  }
}
