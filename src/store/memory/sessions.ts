// The in-process store's sessions and each user's list of them.
import { ExpiringMap } from "./expiring-map.js";
import { clone } from "./clone.js";
import type { SessionOwner, SessionStore, SessionSummary } from "../port.js";
import { bySeen, summaryOf } from "../port.js";

export class MemorySessions implements SessionStore {
  readonly map = new ExpiringMap<string>();
  /**
   * userId → sid → summary: the per-user index. Entries of ended sessions are dropped on read and
   * by a sweep each minute, as Redis expires the index with the user's last session.
   */
  private readonly index = new Map<string, Map<string, SessionSummary>>();
  private readonly sweeper = setInterval(() => this.sweep(), 60_000).unref();
  sweep(): void {
    const now = Date.now();
    for (const [userId, sessions] of this.index) {
      for (const [sid, e] of sessions) if (e.expiresAt <= now || !this.map.has(sid)) sessions.delete(sid);
      if (sessions.size === 0) this.index.delete(userId);
    }
  }
  close(): void {
    clearInterval(this.sweeper);
    this.map.close();
    this.index.clear();
  }
  async get(sid: string) {
    return this.map.get(sid) ?? null;
  }
  async set(sid: string, data: string, ttlSeconds: number, owner?: SessionOwner) {
    if (owner && !owner.create && !this.map.has(sid)) return;
    this.map.set(sid, data, ttlSeconds * 1000);
    if (!owner) return;
    let sessions = this.index.get(owner.userId);
    if (!sessions) this.index.set(owner.userId, (sessions = new Map()));
    sessions.set(sid, summaryOf(sid, owner, Date.now() + ttlSeconds * 1000));
  }
  async destroy(sid: string, userId?: string) {
    this.map.delete(sid);
    if (userId !== undefined) this.forget(userId, sid);
  }
  async listForUser(userId: string) {
    const sessions = this.index.get(userId);
    if (!sessions) return [];
    const now = Date.now();
    for (const [sid, e] of sessions) if (e.expiresAt <= now || !this.map.has(sid)) sessions.delete(sid);
    if (sessions.size === 0) this.index.delete(userId);
    return [...sessions.values()].map(clone).sort(bySeen);
  }
  async destroyForUser(userId: string, exceptSid?: string) {
    let n = 0;
    for (const sid of [...(this.index.get(userId)?.keys() ?? [])]) {
      if (sid === exceptSid) continue;
      if (this.map.has(sid)) n++;
      this.map.delete(sid);
      this.forget(userId, sid);
    }
    return n;
  }
  /** How many users have index entries (tests: nothing outlives a deleted user). */
  indexedUsers(): string[] {
    return [...this.index.keys()];
  }
  private forget(userId: string, sid: string) {
    const sessions = this.index.get(userId);
    sessions?.delete(sid);
    if (sessions?.size === 0) this.index.delete(userId);
  }
}
