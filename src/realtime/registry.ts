// This node's sockets, by app and by token, fed by the store's feed: every new event goes to the
// app's sockets here, every revocation drops the token's sockets here. Every node does the same,
// so an event or a revocation reaches the sockets of every node. Expiry is kept per token too: one
// timer for all the sockets of an expiring token, none for tokens that never expire. Users'
// sockets (access tokens) are kept by user instead of by app: the app's events are not theirs,
// and access-checks.ts finds them by user when the user's access changes.
import type { AccessChange, ChannelMessage, FeedMessage, StoredEvent } from "../store/port.js";
import type { EndReason } from "./who.js";
import type { ChannelSocket } from "./types.js";

/** How long a revocation is remembered for sockets whose handshake was verifying meanwhile. */
const RECENT_MS = 10_000;
/** Longest a timer may wait in one go (setTimeout's limit). */
const MAX_TIMER = 2 ** 31 - 1;

/** Sends one event to the app's sockets on this node but those named (one encoding for all). */
export type Broadcast = (app: string, except: string[], e: StoredEvent) => void;
/** Sends one channel message to the channel's subscribed sockets on this node but those named. */
export type BroadcastMessage = (app: string, except: string[], m: ChannelMessage) => void;

/** The key of an app's channel in this node's maps (and the name of its Socket.IO room). */
export const channelKey = (app: string, channel: string): string => `msg:${app}\u0000${channel}`;

export class SessionRegistry {
  private readonly byApp = new Map<string, Set<ChannelSocket>>();
  private readonly byToken = new Map<string, Set<ChannelSocket>>();
  private readonly expiry = new Map<string, NodeJS.Timeout>();
  private readonly recentlyRevoked = new Map<string, number>();
  /** The sockets subscribed to each channel (channelKey), on this node. */
  private readonly byChannel = new Map<string, Set<ChannelSocket>>();
  /** Users' sockets by the user's key (UserIdentity.userKey). */
  private readonly byUser = new Map<string, Set<ChannelSocket>>();

  constructor(
    private readonly broadcast: Broadcast,
    private readonly broadcastMessage: BroadcastMessage,
  ) {}

  /** The socket has a subscription to the channel (socket.data.subscriptions holds it). */
  subscribe(socket: ChannelSocket, channel: string): void {
    addTo(this.byChannel, channelKey(socket.data.app, channel), socket);
  }

  unsubscribe(socket: ChannelSocket, channel: string): void {
    removeFrom(this.byChannel, channelKey(socket.data.app, channel), socket);
  }

  /**
   * Adds a socket; false (and the socket is dropped) if its token was revoked during the handshake
   * or has expired since.
   */
  add(socket: ChannelSocket): boolean {
    const { app, tokenId, expiresAt, user } = socket.data;
    if (expiresAt !== undefined && expiresAt <= Date.now()) {
      socket.data.end(socket, "expired");
      return false;
    }
    if (this.recentlyRevoked.has(tokenId)) {
      socket.data.end(socket, "revoked");
      return false;
    }
    if (user) addTo(this.byUser, user.userKey, socket);
    else addTo(this.byApp, app, socket);
    addTo(this.byToken, tokenId, socket);
    if (expiresAt !== undefined && !this.expiry.has(tokenId)) this.armExpiry(tokenId, expiresAt);
    return true;
  }

  remove(socket: ChannelSocket): void {
    const { app, tokenId, subscriptions, user } = socket.data;
    if (subscriptions) for (const channel of subscriptions.keys()) this.unsubscribe(socket, channel);
    if (user) removeFrom(this.byUser, user.userKey, socket);
    else removeFrom(this.byApp, app, socket);
    if (removeFrom(this.byToken, tokenId, socket)) {
      clearTimeout(this.expiry.get(tokenId));
      this.expiry.delete(tokenId);
    }
  }

  onFeed(m: FeedMessage): void {
    if (m.type === "event") {
      const sockets = this.byApp.get(m.app);
      if (!sockets) return;
      const except: string[] = [];
      let some = false;
      for (const s of sockets) {
        if (s.data.accept(s, m.event)) some = true;
        else except.push(s.id);
      }
      if (some) this.broadcast(m.app, except, m.event);
    } else if (m.type === "message") {
      const { channel } = m.message;
      const sockets = this.byChannel.get(channelKey(m.app, channel));
      if (!sockets) return;
      const except: string[] = [];
      let some = false;
      for (const s of sockets) {
        const sub = s.data.subscriptions?.get(channel);
        if (sub?.accept(s, m.message)) some = true;
        else except.push(s.id);
      }
      if (some) this.broadcastMessage(m.app, except, m.message);
    } else if (m.type === "revoked") {
      // A revoked token: a Socket.IO disconnect, so the client does not retry with it.
      const now = Date.now();
      for (const [id, at] of this.recentlyRevoked) if (now - at > RECENT_MS) this.recentlyRevoked.delete(id);
      this.recentlyRevoked.set(m.tokenId, now);
      this.disconnectToken(m.tokenId, "revoked");
    }
  }

  /** Every socket on this node. */
  all(): ChannelSocket[] {
    return [...this.byApp.values(), ...this.byUser.values()].flatMap((set) => [...set]);
  }

  /**
   * The users' sockets of a user (by key), an app or a grant (those given), or all of them. Only a
   * user is indexed: an app or a grant ends rarely, and a walk over the users' sockets is cheap.
   */
  users(change: AccessChange): ChannelSocket[] {
    const sets: Iterable<Iterable<ChannelSocket>> =
      change.user !== undefined ? [this.byUser.get(change.user) ?? []] : this.byUser.values();
    const out: ChannelSocket[] = [];
    for (const set of sets)
      for (const s of set)
        if (
          (change.app === undefined || s.data.user?.appKey === change.app) &&
          (change.grant === undefined || s.data.user?.grantId === change.grant)
        )
          out.push(s);
    return out;
  }

  /** Disconnects the token's sockets once it expires (at once if it already has). */
  private armExpiry(tokenId: string, expiresAt: number): void {
    const left = expiresAt - Date.now();
    if (left <= 0) {
      this.disconnectToken(tokenId, "expired");
      return;
    }
    const timer = setTimeout(
      () => {
        this.expiry.delete(tokenId);
        if (this.byToken.has(tokenId)) this.armExpiry(tokenId, expiresAt);
      },
      Math.min(left, MAX_TIMER),
    );
    this.expiry.set(tokenId, timer);
  }

  private disconnectToken(tokenId: string, reason: EndReason): void {
    const sockets = this.byToken.get(tokenId);
    if (sockets) for (const s of [...sockets]) s.data.end(s, reason);
  }
}

function addTo(map: Map<string, Set<ChannelSocket>>, k: string, s: ChannelSocket) {
  let set = map.get(k);
  if (!set) map.set(k, (set = new Set()));
  set.add(s);
}

/** Removes s; true when that left k without any socket. */
function removeFrom(map: Map<string, Set<ChannelSocket>>, k: string, s: ChannelSocket): boolean {
  const set = map.get(k);
  if (!set) return false;
  set.delete(s);
  if (set.size > 0) return false;
  map.delete(k);
  return true;
}
