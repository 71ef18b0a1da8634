// This node's sessions, by app and by token, fed by the store's feed: every new event goes to
// the app's sessions here, every revocation drops the token's sockets here. Every node does the
// same, so an event or a revocation reaches the sockets of every node.
import type { FeedMessage } from "../store/realtime-port.js";
import type { Session } from "./session.js";

export class SessionRegistry {
  private readonly byApp = new Map<string, Set<Session>>();
  private readonly byToken = new Map<string, Set<Session>>();

  add(s: Session): void {
    addTo(this.byApp, s.app, s);
    addTo(this.byToken, s.socket.data.tokenId, s);
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
