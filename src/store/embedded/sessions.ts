// The embedded store's sessions and each user's index of them ([user id, sid] → summary), which
// expires with the session, as Redis expires the index with the user's last session.
import type { SessionOwner, SessionStore, SessionSummary } from "../port.js";
import { bySeen, summaryOf } from "../port.js";
import type { Engine } from "./engine.js";

export class EmbeddedSessions implements SessionStore {
  private readonly sessions;
  private readonly index;

  constructor(private readonly engine: Engine) {
    this.sessions = engine.table<string>("sessions");
    this.index = engine.table<SessionSummary>("user-sessions");
  }

  async get(sid: string) {
    return this.sessions.get(sid) ?? null;
  }
  async set(sid: string, data: string, ttlSeconds: number, owner?: SessionOwner) {
    await this.engine.write(() => {
      if (owner && !owner.create && !this.sessions.has(sid)) return;
      const until = Date.now() + ttlSeconds * 1000;
      this.sessions.put(sid, data, until);
      if (owner) this.index.put([owner.userId, sid], summaryOf(sid, owner, until), until);
    });
  }
  async destroy(sid: string, userId?: string) {
    await this.engine.write(() => {
      this.sessions.remove(sid);
      if (userId !== undefined) this.index.remove([userId, sid]);
    });
  }
  async listForUser(userId: string) {
    const list = this.index.range([userId]);
    const ended = list.filter((e) => !this.sessions.has(e.value.sid));
    // Entries of sessions ended without their user named (a sign-out): dropped on read.
    if (ended.length > 0) await this.engine.write(() => ended.forEach((e) => this.index.remove(e.key)));
    return list
      .filter((e) => !ended.includes(e))
      .map((e) => e.value)
      .sort(bySeen);
  }
  destroyForUser(userId: string, exceptSid?: string) {
    return this.engine.write(() => {
      const ended: string[] = [];
      for (const { key, value } of this.index.range([userId])) {
        if (value.sid === exceptSid) continue;
        if (this.sessions.remove(value.sid)) ended.push(value.sid);
        this.index.remove(key);
      }
      return ended;
    });
  }
}
