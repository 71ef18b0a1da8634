// This node's sessions, by app and by token, fed by the store's feed: every new event goes to
// the app's sessions here, every revocation drops the token's sockets here. Every node does the
// same, so an event or a revocation reaches the sockets of every node.
import type { FeedMessage } from "../store/port.js";
import type { Session } from "./session.js";

/** How long a revocation is remembered for sockets whose handshake was verifying meanwhile. */
const RECENT_MS = 10_000;

export class SessionRegistry {
  private readonly byApp = new Map<string, Set<Session>>();
  private readonly byToken = new Map<string, Set<Session>>();
  private readonly recentlyRevoked = new Map<string, number>();

  /** Adds a session; false (and the socket is dropped) if its token was revoked during the handshake. */
  add(s: Session): boolean {
    if (this.recentlyRevoked.has(s.socket.data.tokenId)) {
      s.socket.disconnect(true);
      return false;
    }
    addTo(this.byApp, s.app, s);
    addTo(this.byToken, s.socket.data.tokenId, s);
    return true;
  }

  remove(s: Session): void {
    removeFrom(this.byApp, s.app, s);
    removeFrom(this.byToken, s.socket.data.tokenId, s);
  }

  onFeed(m: FeedMessage): void {
    if (m.type === "event") {
      for (const s of this.byApp.get(m.app) ?? []) s.deliver(m.event);
    } else {
      // A revoked token: a Socket.IO disconnect, so the client does not retry with it.
      const now = Date.now();
      for (const [id, at] of this.recentlyRevoked) if (now - at > RECENT_MS) this.recentlyRevoked.delete(id);
      this.recentlyRevoked.set(m.tokenId, now);
      for (const s of [...(this.byToken.get(m.tokenId) ?? [])]) s.socket.disconnect(true);
    }
  }

  all(): Session[] {
    return [...this.byApp.values()].flatMap((set) => [...set]);
  }
}

function addTo(map: Map<string, Set<Session>>, k: string, s: Session) {
  let set = map.get(k);
  if (!set) map.set(k, (set = new Set()));
  set.add(s);
}

function removeFrom(map: Map<string, Set<Session>>, k: string, s: Session) {
  const set = map.get(k);
  if (!set) return;
  set.delete(s);
  if (set.size === 0) map.delete(k);
}
