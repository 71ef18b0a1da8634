// Presence (docs/realtime.md#presence): who is subscribed to an app's channel, on every node.
//
// A node counts its own sockets per (app, channel, member) in memory: a subscribe or unsubscribe
// is one map update, with no store call on its way. The counts that changed are written to the
// store after the current tick, one call per app for everything that changed in it (and never
// two at once for one app, as each call sends absolute counts). Each node renews its lease on the
// apps it has members in every PRESENCE_HEARTBEAT; the store drops the counts of a node whose lease
// (twice that) ended, so the members of a node that died leave within three heartbeats.
import { randomUUID } from "node:crypto";
import type { MemberKey, PresenceCount, Store } from "../store/port.js";

/** A member of a channel: a user (their `sub`) for a user's sockets, a CUSTOM TOKEN (its id) for a token's. */
export type Member = { sub: string } | { token: string };

/** A member and how many of its sockets are subscribed to the channel, on every node. */
export type PresenceMember = Member & { connections: number };

export function memberKey(m: Member): MemberKey {
  return "sub" in m ? `u:${m.sub}` : `t:${m.token}`;
}

/** The member a key names (undefined: not a key this code makes). */
export function memberOfKey(key: MemberKey): Member | undefined {
  if (key.startsWith("u:")) return { sub: key.slice(2) };
  if (key.startsWith("t:")) return { token: key.slice(2) };
  return undefined;
}

/**
 * Most members one `presence` answer lists (docs/realtime.md#presence): the first by member key
 * (tokens' ids, then users' subs); `total` counts them all. 1,000 is about 60 KB of ack; a channel
 * of 100,000 members would otherwise send 3 MB to every socket that asks.
 */
export const PRESENCE_LIST_MAX = 1000;

/** Most entries one store call carries. */
const CHUNK = 1000;

interface AppState {
  /** "<channel> <member key>" → this node's sockets; absent when none. */
  counts: Map<string, number>;
  /** The entries changed since the store last had them. */
  dirty: Set<string>;
  /** The store holds entries of this node for the app (as of the last sync). */
  held: boolean;
  /** A sync is asked for (again). */
  again: boolean;
  /** The sync under way, if any. */
  syncing: Promise<void> | undefined;
}

export interface PresenceDeps {
  store: Store;
  /** PRESENCE_HEARTBEAT: ms between two renewals of the node's leases; a lease lasts twice that. */
  heartbeatMs: number;
  onError?: (what: string, err: unknown) => void;
}

export class Presence {
  /** This node, as the store knows it (a new one at each start). */
  readonly node = randomUUID();
  private readonly apps = new Map<string, AppState>();
  /** Apps with changes to write after this tick. */
  private readonly pending = new Set<string>();
  private flushing = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private lastError = 0;

  constructor(private readonly deps: PresenceDeps) {}

  /** One more socket of the member is subscribed to the channel on this node. */
  add(app: string, channel: string, member: Member): void {
    this.change(app, channel, member, 1);
  }

  /** One socket of the member is no longer subscribed to the channel on this node. */
  remove(app: string, channel: string, member: Member): void {
    this.change(app, channel, member, -1);
  }

  /**
   * The channel's members on every node, each with its connections: the first PRESENCE_LIST_MAX by
   * member key, and how many there are in all. This node's own changes are
   * written first, so a socket is counted here as soon as its subscribe is acknowledged; another
   * node's, once that node has written them (right after the tick it acknowledged them in).
   */
  async members(app: string, channel: string): Promise<{ members: PresenceMember[]; total: number }> {
    const s = this.apps.get(app);
    if (s?.dirty.size) await this.sync(app);
    else if (s?.syncing) await s.syncing;
    const found = await this.deps.store.presence.members(app, channel, this.node);
    const all = found
      .sort((a, b) => (a.member < b.member ? -1 : a.member > b.member ? 1 : 0))
      .flatMap(({ member, connections }) => {
        const m = memberOfKey(member);
        return m ? [{ ...m, connections }] : [];
      });
    return { members: all.slice(0, PRESENCE_LIST_MAX), total: all.length };
  }

  /** The node stops: its members leave now (on every node) rather than when its leases end. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await Promise.allSettled([...this.apps.values()].map((s) => s.syncing));
    const apps = [...this.apps.keys()];
    this.apps.clear();
    await Promise.allSettled(apps.map((app) => this.deps.store.presence.drop(this.node, app)));
  }

  private change(app: string, channel: string, member: Member, d: number): void {
    if (this.closed) return;
    let s = this.apps.get(app);
    if (!s)
      this.apps.set(app, (s = { counts: new Map(), dirty: new Set(), held: false, again: false, syncing: undefined }));
    const f = `${channel} ${memberKey(member)}`;
    const n = (s.counts.get(f) ?? 0) + d;
    if (n > 0) s.counts.set(f, n);
    else s.counts.delete(f);
    s.dirty.add(f);
    this.pending.add(app);
    if (!this.flushing) {
      // Everything changed in this tick goes in one call per app.
      this.flushing = true;
      setImmediate(() => {
        this.flushing = false;
        // (Unless a members() of this tick has written them already.)
        for (const a of this.pending) if (this.apps.get(a)?.dirty.size) void this.sync(a);
        this.pending.clear();
      });
    }
    if (!this.timer) {
      this.timer = setInterval(() => this.beat(), this.deps.heartbeatMs);
      this.timer.unref();
    }
  }

  /** Renews the leases (and retries what failed); stops when the node has nobody present. */
  private beat(): void {
    for (const [app, s] of this.apps) if (s.held || s.dirty.size > 0) void this.sync(app);
    if (this.apps.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Writes the app's changes and renews its lease; resolves once what was asked so far is written (or failed). */
  private sync(app: string): Promise<void> {
    const s = this.apps.get(app);
    if (!s || this.closed) return Promise.resolve();
    // The call under way has every change so far, and renews the lease: nothing to add.
    if (s.syncing && s.dirty.size === 0) return s.syncing;
    s.again = true;
    s.syncing ??= this.run(app, s);
    return s.syncing;
  }

  private async run(app: string, s: AppState): Promise<void> {
    try {
      while (s.again) {
        s.again = false;
        await this.syncOnce(app, s);
      }
    } finally {
      s.syncing = undefined;
      if (s.counts.size === 0 && s.dirty.size === 0 && !s.held && this.apps.get(app) === s) this.apps.delete(app);
    }
  }

  private async syncOnce(app: string, s: AppState): Promise<void> {
    // Unless the store holds this node's entries, send them all (it keeps none other). Should that
    // take several calls, the first is the full one and the others add to it.
    const full = !s.held;
    const all = full ? [...new Set([...s.counts.keys(), ...s.dirty])] : [...s.dirty];
    s.dirty.clear();
    // At most CHUNK a call, so that one script never holds Redis for long (a burst of thousands of
    // subscriptions in one tick); the rest go in the next calls, as changes (the counts are absolute).
    const fields = all.slice(0, CHUNK);
    for (const f of all.slice(CHUNK)) s.dirty.add(f);
    if (all.length > CHUNK) s.again = true;
    const counts: PresenceCount[] = fields.map((f) => {
      const at = f.indexOf(" ");
      return { channel: f.slice(0, at), member: f.slice(at + 1), count: s.counts.get(f) ?? 0 };
    });
    try {
      const r = await this.deps.store.presence.sync(this.node, app, counts, {
        full,
        leaseMs: 2 * this.deps.heartbeatMs,
      });
      // Reaped while away (the store lost the node's lease): send everything again, at once.
      s.held = r.held && !r.lost;
      if (r.lost) s.again = true;
    } catch (err) {
      for (const f of fields) s.dirty.add(f);
      s.again = false;
      // The next heartbeat tries again; say so once in a while, not at every change.
      const now = Date.now();
      if (now - this.lastError > 5000) {
        this.lastError = now;
        this.deps.onError?.("presence: the store did not take this node's members; retrying", err);
      }
    }
  }
}
