// Presence on the embedded store (ports/presence.ts): in this process's memory, never on disk. The
// embedded store serves one node (one server process per DATA_DIR), so there is never another
// node to reap; the leases are kept all the same, so that this store and Redis meet one contract
// (test/store-presence.contract.test.ts) and no code above depends on which one it runs on.
import type { FeedMessage, MemberKey, PresenceCount, PresenceStore, PresenceSync } from "../port.js";

interface AppPresence {
  /** node → when its lease ends (ms). */
  leases: Map<string, number>;
  /** node → its counts by "<channel> <member>". */
  nodes: Map<string, Map<string, number>>;
  /** channel → member → connections over the live nodes. */
  totals: Map<string, Map<MemberKey, number>>;
}

export class EmbeddedPresence implements PresenceStore {
  private readonly apps = new Map<string, AppPresence>();

  /** publish: the feed of this process (EmbeddedBus), which tells the node's sockets. */
  constructor(private readonly publish: (m: FeedMessage) => void) {}

  async sync(
    node: string,
    app: string,
    counts: PresenceCount[],
    opts: { full: boolean; leaseMs: number },
  ): Promise<PresenceSync> {
    const p = this.open(app);
    this.reap(app, p, node);
    const existed = p.nodes.has(node);
    const mine = p.nodes.get(node) ?? new Map<string, number>();
    if (opts.full) {
      const sent = new Set(counts.map((c) => field(c.channel, c.member)));
      for (const [f, n] of [...mine]) {
        if (sent.has(f)) continue;
        mine.delete(f);
        this.add(app, p, ...split(f), -n);
      }
    }
    for (const c of counts) {
      const f = field(c.channel, c.member);
      const old = mine.get(f) ?? 0;
      if (c.count > 0) mine.set(f, c.count);
      else mine.delete(f);
      this.add(app, p, c.channel, c.member, c.count - old);
    }
    const held = mine.size > 0;
    if (held) {
      p.nodes.set(node, mine);
      p.leases.set(node, Date.now() + opts.leaseMs);
    } else {
      p.nodes.delete(node);
      p.leases.delete(node);
    }
    this.close(app, p);
    return { lost: !existed && !opts.full, held };
  }

  async members(
    app: string,
    channel: string,
    node: string,
  ): Promise<Array<{ member: MemberKey; connections: number }>> {
    const p = this.apps.get(app);
    if (!p) return [];
    this.reap(app, p, node);
    const totals = p.totals.get(channel);
    this.close(app, p);
    return totals ? [...totals].map(([member, connections]) => ({ member, connections })) : [];
  }

  async drop(node: string, app: string): Promise<void> {
    const p = this.apps.get(app);
    if (!p) return;
    this.remove(app, p, node);
    this.close(app, p);
  }

  private open(app: string): AppPresence {
    let p = this.apps.get(app);
    if (!p) this.apps.set(app, (p = { leases: new Map(), nodes: new Map(), totals: new Map() }));
    return p;
  }

  /** Forgets an app nobody is present in. */
  private close(app: string, p: AppPresence): void {
    if (p.nodes.size === 0 && p.totals.size === 0) this.apps.delete(app);
  }

  /** Removes the nodes (but `self`) whose lease has ended. */
  private reap(app: string, p: AppPresence, self: string): void {
    const now = Date.now();
    for (const [node, until] of [...p.leases]) if (until < now && node !== self) this.remove(app, p, node);
  }

  private remove(app: string, p: AppPresence, node: string): void {
    for (const [f, n] of p.nodes.get(node) ?? []) this.add(app, p, ...split(f), -n);
    p.nodes.delete(node);
    p.leases.delete(node);
  }

  /** As the Redis script's add: a total that leaves 0 is a join, one back at 0 a leave. */
  private add(app: string, p: AppPresence, channel: string, member: MemberKey, d: number): void {
    if (d === 0) return;
    let totals = p.totals.get(channel);
    if (!totals) p.totals.set(channel, (totals = new Map()));
    const before = totals.get(member) ?? 0;
    const n = before + d;
    if (n > 0) totals.set(member, n);
    else {
      totals.delete(member);
      if (totals.size === 0) p.totals.delete(channel);
    }
    if (n > 0 && before <= 0) this.publish({ type: "presence", app, channel, member, joined: true });
    else if (n <= 0 && before > 0) this.publish({ type: "presence", app, channel, member, joined: false });
  }
}

const field = (channel: string, member: MemberKey) => `${channel} ${member}`;

function split(f: string): [string, MemberKey] {
  const at = f.indexOf(" ");
  return [f.slice(0, at), f.slice(at + 1)];
}
