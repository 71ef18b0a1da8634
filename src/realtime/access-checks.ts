// Users' sockets end at once when their access does (docs/realtime.md#users-sockets). The use case
// that ends access (a revocation, a withdrawn consent, signing out everywhere, disabling or deleting
// the user or the app) stores the change, then awaits the feed's "access" message before it
// answers (domain/user-access.ts). Here every node hears it and checks each of its sockets concerned
// against the store again: a socket whose token no longer works gets `ended` and is disconnected.
// The bound: one feed hop and one store read after the store holds the change.
//
// Two races are closed here:
// - a handshake that verified its token just before a change, and is added just after the node
//   heard it: each handshake notes the count of changes heard (mark) before it verifies, and a
//   socket added after a change for its user or app (or after the feed was away) is checked again;
// - many changes at once (the same revocation sent 50 times): one check runs per socket at a time,
//   and one more after it when changes came meanwhile.
import type { UserAccess } from "../domain/user-access.js";
import type { Logger } from "../log.js";
import type { AccessChange } from "../store/port.js";
import type { SessionRegistry } from "./registry.js";
import { dropConnection, type ChannelSocket } from "./types.js";

/** How long a change is remembered for handshakes that were verifying meanwhile. */
const RECENT_MS = 10_000;
/** The recent map's key of every socket (the feed was away: anything may have changed). */
const EVERYONE = "*";

export class AccessChecks {
  /** Changes heard so far (and feed returns): handshakes note it before they verify. */
  private seq = 0;
  /** The last change heard per user key (`u:`), app (`a:`), grant (`g:`), and for everyone: its seq and time. */
  private readonly recent = new Map<string, { seq: number; at: number }>();
  /** Sockets being checked: whether another change came meanwhile (check once more). */
  private readonly running = new Map<ChannelSocket, boolean>();

  constructor(
    private readonly access: Pick<UserAccess, "isLive">,
    private readonly registry: SessionRegistry,
    private readonly logger: Logger,
  ) {}

  /** What a handshake notes before it verifies an access token. */
  mark(): number {
    return this.seq;
  }

  /** An "access" message from the feed: checks this node's sockets of that user or app. */
  changed(change: AccessChange): void {
    const now = Date.now();
    this.seq++;
    for (const [k, r] of this.recent) if (now - r.at > RECENT_MS) this.recent.delete(k);
    if (change.user !== undefined) this.recent.set(`u:${change.user}`, { seq: this.seq, at: now });
    if (change.app !== undefined) this.recent.set(`a:${change.app}`, { seq: this.seq, at: now });
    if (change.grant !== undefined) this.recent.set(`g:${change.grant}`, { seq: this.seq, at: now });
    for (const s of this.registry.users(change)) this.check(s);
  }

  /** The feed is back after an outage: changes may have gone unheard, so every user's socket is checked. */
  feedBack(): void {
    this.seq++;
    this.recent.set(EVERYONE, { seq: this.seq, at: Date.now() });
    for (const s of this.registry.users({})) this.check(s);
  }

  /** A user's socket just joined the registry: checked again if a change for it came since its handshake began. */
  added(socket: ChannelSocket): void {
    const user = socket.data.user;
    if (!user) return;
    const since = (k: string) => (this.recent.get(k)?.seq ?? -1) > user.seq;
    if (since(`u:${user.userKey}`) || since(`a:${user.appKey}`) || since(`g:${user.grantId}`) || since(EVERYONE))
      this.check(socket);
  }

  private check(socket: ChannelSocket): void {
    if (this.running.has(socket)) {
      this.running.set(socket, true);
      return;
    }
    this.running.set(socket, false);
    void this.run(socket).finally(() => this.running.delete(socket));
  }

  private async run(socket: ChannelSocket): Promise<void> {
    const user = socket.data.user;
    if (!user) return;
    for (;;) {
      let live: boolean;
      try {
        live = await this.access.isLive(user);
      } catch (err) {
        // The store did not answer: close at the transport; the client connects again and its
        // handshake checks the token (refused with unavailable while the store is away).
        this.logger.warn({ err: { message: (err as Error).message } }, "a user's socket could not be checked: closed");
        dropConnection(socket);
        return;
      }
      if (!socket.connected) return;
      if (!live) {
        socket.data.end(socket, user.expiresAt <= Date.now() ? "expired" : "revoked");
        return;
      }
      if (this.running.get(socket) !== true) return;
      this.running.set(socket, false);
    }
  }
}
