// Identity events (docs/events.md): "this happened to user U", told to every app U has a consent
// with — live to the app's CUSTOM TOKEN sockets on every node (the feed), and queued for its
// webhook and back-channel logout URLs (domain/deliveries.ts sends them). The use cases call emit()
// where the thing happens (withdrawing a consent, ending sessions, disabling, deleting), so the
// pages, the admin pages and the CLI all emit. emit() never waits and never throws: a request is
// never slowed or failed by it; what fails is logged (never a secret) and the event is lost for
// that app (the queue write is what makes it durable). The user's id travels and waits sealed under
// SECRET (the feed's notices, the queued deliveries): after an account's deletion no record names
// the user in clear (docs/events.md#what-the-store-holds).
import type { Delivery, IdentityNotice, Store } from "../store/port.js";
import type { IdentityEvent } from "../protocol.js";
import { randomId } from "./secrets.js";
import { seal, sealingKey, unseal } from "./seal.js";
import { publicSessionId } from "./session-ids.js";

export type IdentityEventType = IdentityEvent["type"];

/** The events that end a user's sessions at the app: they also go to its back-channel logout URL. */
const LOGOUT_TYPES: ReadonlySet<IdentityEventType> = new Set(["session.ended", "user.disabled", "user.deleted"]);
const IDENTITY_TYPES: ReadonlySet<string> = new Set([...LOGOUT_TYPES, "consent.withdrawn"]);

export interface IdentityEventsDeps {
  store: Store;
  /** SECRET: the user's id is sealed under a key derived from it. */
  secret: string;
  /** Something could not be told (what, and why); never the event's contents. */
  onError(what: string, err: unknown): void;
  now?: () => number;
}

export class IdentityEvents {
  private readonly pending = new Set<Promise<void>>();
  private readonly key: Buffer;
  /** Deliveries were queued: this node's sender looks at once (node.ts sets it). */
  onQueued: (() => void) | undefined;
  constructor(private readonly deps: IdentityEventsDeps) {
    this.key = sealingKey(deps.secret, "sigil identity events");
  }

  /** A notice from the feed as the app's sockets get it; null when it does not open (not ours). */
  openNotice(app: string, n: IdentityNotice): IdentityEvent | null {
    const sub = unseal(this.key, n.sub, `notice:${app}`);
    if (sub === null || !IDENTITY_TYPES.has(n.type)) return null;
    return { type: n.type as IdentityEventType, sub, at: n.at };
  }

  /** A queued delivery's user id and body in clear; null when they do not open (another SECRET). */
  openDelivery(d: Delivery): { sub: string; body: string } | null {
    // A channel message (domain/channel-webhooks.ts) names no user and is not sealed.
    if (d.sub === "") return { sub: "", body: d.body };
    const sub = unseal(this.key, d.sub, `delivery:${d.id}`);
    const body = d.body === "" ? "" : unseal(this.key, d.body, `delivery:${d.id}`);
    return sub === null || body === null ? null : { sub, body };
  }

  /**
   * The apps to tell about the user: those they have a consent with. Read before a change that
   * removes the consents (an account's deletion). Never throws: none when the store is away.
   */
  async appsOf(userId: string): Promise<string[]> {
    try {
      return await this.deps.store.grants.consents(userId);
    } catch (err) {
      this.deps.onError("identity events: the user's apps could not be read", err);
      return [];
    }
  }

  /**
   * Tells the apps (those given, or every app the user has a consent with), off the caller's path.
   * sessions: the page sessions that ended, when some of the user's stay (a logout token per
   * session, with its `sid`); absent, a logout token names the user alone: every session ended.
   */
  emit(type: IdentityEventType, userId: string, apps?: string[], sessions?: readonly string[]): void {
    const p: Promise<void> = this.tell(type, userId, apps, sessions)
      .catch((err: unknown) => this.deps.onError(`identity event ${type}: not told`, err))
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  /** `session.ended`: those sessions (their ids in the store), or, without them, all of the user's. */
  sessionsEnded(userId: string, sessions?: readonly string[]): void {
    this.emit("session.ended", userId, undefined, sessions);
  }

  /** Resolves once every event emitted so far is told (the CLI before it exits; a node as it stops). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private async tell(
    type: IdentityEventType,
    sub: string,
    given: string[] | undefined,
    sessions: readonly string[] | undefined,
  ): Promise<void> {
    const { store } = this.deps;
    // Back-Channel Logout 1.0 §2.4: a token with `sid` ends that session at the app; one without
    // ends all of the user's there (all ended here, or the account disabled or deleted).
    const sids = sessions?.length ? sessions.map((s) => publicSessionId(this.deps.secret, s)) : [""];
    const apps = given ?? (await store.grants.consents(sub));
    if (apps.length === 0) return;
    const now = (this.deps.now ?? Date.now)();
    const at = new Date(now).toISOString();
    const queued: Delivery[] = [];
    await Promise.all(
      apps.map(async (clientId) => {
        // An app deleted meanwhile (the user's own, deleted with the account) hears nothing.
        const app = await store.apps.get(clientId);
        if (!app) return;
        // The sockets' live notice failing (the feed away) must not cost the durable deliveries.
        await store.identityFeed
          .publish(clientId, { type, sub: seal(this.key, sub, `notice:${clientId}`), at })
          .catch((err: unknown) => this.deps.onError(`identity event ${type}: not told to the sockets`, err));
        const delivery = (kind: Delivery["kind"], body: string): Delivery => {
          const id = `msg_${randomId()}`;
          const sealed = (s: string) => seal(this.key, s, `delivery:${id}`);
          const base = { id, app: clientId, kind, type, attempts: 0, createdAt: now, dueAt: now };
          return { ...base, sub: sealed(sub), body: body === "" ? "" : sealed(body) };
        };
        // Standard Webhooks' payload: type, timestamp, data.
        if (app.webhookUrl)
          queued.push(delivery("webhook", JSON.stringify({ type, timestamp: at, data: { sub, client_id: clientId } })));
        // A logout token's body is its sid ("": none); the token itself is made at each attempt.
        if (app.backchannelLogoutUri && LOGOUT_TYPES.has(type))
          for (const sid of sids) queued.push(delivery("backchannel", sid));
      }),
    );
    if (queued.length === 0) return;
    await store.deliveries.enqueue(queued);
    this.onQueued?.();
  }
}
