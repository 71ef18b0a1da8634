// ---- Presence: who is subscribed to an app's channel, on every node (docs/realtime.md#presence).
//
// Each node counts its own sockets per (channel, member) in memory and hands the store its counts
// in batches (domain/presence.ts). The store keeps, per app, each node's counts under a lease that
// the node renews, and the channel's totals over the nodes whose lease runs. A node whose lease
// ran out (it died, or lost the store for that long) is reaped by the next call that touches the
// app: its counts leave the totals. Whenever a member's total goes from 0 to more, or back to 0,
// the store tells every node on the feed (FeedMessage "presence"), in the same step.

/**
 * A member as the store keeps it: "t:<token id>" for a CUSTOM TOKEN's sockets, "u:<sub>" for a
 * user's (domain/presence.ts makes and reads them; the store treats them as opaque text).
 */
export type MemberKey = string;

/** One node's count of one member's sockets subscribed to one channel of the app. */
export interface PresenceCount {
  channel: string;
  member: MemberKey;
  /** The node's count now (absolute, not a change: a sync sent twice does no harm); 0 removes it. */
  count: number;
}

export interface PresenceSync {
  /**
   * The node's entries for the app were gone before this sync although it did not send them all
   * (`full`): another node reaped it (its lease ran out). It must send every count again, full.
   */
  lost: boolean;
  /** The node holds entries for the app after this sync (so it must keep renewing its lease). */
  held: boolean;
}

export interface PresenceStore {
  /**
   * Sets the node's counts of the given (channel, member)s of an app, renews its lease on the app
   * (it ends `leaseMs` from now, by the store's clock) and reaps the nodes whose lease ended. `full`:
   * the counts are every one the node has for the app (none other of its entries is kept).
   */
  sync(
    node: string,
    app: string,
    counts: PresenceCount[],
    opts: { full: boolean; leaseMs: number },
  ): Promise<PresenceSync>;
  /** The channel's members and their connections on every node whose lease runs (reaping first). */
  members(app: string, channel: string, node: string): Promise<Array<{ member: MemberKey; connections: number }>>;
  /** The node leaves the app (it stops): its counts leave the totals now, rather than at reaping. */
  drop(node: string, app: string): Promise<void>;
}
