// ---- Identity events' way out (docs/events.md): where an app hears about its users, the durable
// queue of deliveries to those URLs (webhooks, back-channel logout), taken by one node at a time,
// and the answers of the last attempts per app (listed on /developers).

/** An app's event endpoints (part of its AppRecord). Absent: none registered. */
export interface AppEventEndpoints {
  /** Where identity events are POSTed, signed the Standard Webhooks way. */
  webhookUrl?: string;
  /** The webhook's signing secret (`whsec_…`), sealed under SECRET (domain/event-endpoints.ts). */
  webhookSecretSealed?: string;
  /** Where OpenID Connect Back-Channel Logout tokens are POSTed. */
  backchannelLogoutUri?: string;
  /**
   * The channels whose messages are also POSTed to the webhook (names, or prefixes ending in `*`;
   * domain/channel-webhooks.ts). Absent: none.
   */
  webhookChannels?: string[];
}

/** One message to send to one app's endpoint, until it is answered 2xx or given up. */
export interface Delivery {
  /** Unique (`msg_…`): the webhook's `webhook-id`, the same on every attempt. */
  id: string;
  /** client_id of the app. */
  app: string;
  kind: "webhook" | "backchannel";
  /** The event's type (consent.withdrawn, session.ended, user.disabled, user.deleted, channel.message). */
  type: string;
  /**
   * The user the event is about, sealed under SECRET (domain/identity-events.ts); "" for a channel
   * message, which names none: its body is then kept as it is, as the channel's history keeps it.
   */
  sub: string;
  /**
   * The webhook's JSON body, sealed likewise. For back-channel logout (its token is made at each
   * attempt) the ended session's sid, sealed, or "" when the token names the user alone.
   */
  body: string;
  /** Attempts made so far. */
  attempts: number;
  /** When it was queued, ms since the epoch (retries stop a while after: WEBHOOK_RETRY_FOR). */
  createdAt: number;
  /** When it is next due, ms since the epoch. */
  dueAt: number;
}

/**
 * Why an attempt failed without a status, as a code the pages put in words in each language
 * (dev.fail* in i18n/messages): a redirect (not followed), no answer in time, an address that is
 * not public (DELIVERY_ALLOW_PRIVATE), a connection that failed (its system code, ECONNREFUSED…),
 * or a webhook secret that does not open under this SECRET.
 */
export type DeliveryFailure =
  | { code: "redirect" }
  | { code: "timeout"; ms: number }
  | { code: "not_public" }
  | { code: "connection"; errno?: string }
  | { code: "secret_unreadable" };

/** How one attempt was answered (the list on /developers). */
export interface DeliveryAttempt {
  id: string;
  kind: Delivery["kind"];
  type: string;
  /** The URL it was sent to. */
  url: string;
  /** When it was sent, ms since the epoch. */
  at: number;
  /** Which attempt (1 for the first). */
  attempt: number;
  /** The HTTP status, when there was an answer. */
  status?: number;
  /** Why it failed (a redirect has its status too): a code, never a secret. */
  failure?: DeliveryFailure;
  /** What attempts recorded before failure codes (English phrases); shown as they are. */
  error?: string;
  /** How long it took, ms. */
  ms: number;
  /** "delivered", "retrying" (another attempt is due), or "failed" (given up). */
  outcome: "delivered" | "retrying" | "failed";
}

export interface DeliveryStore {
  /** Queues deliveries (due at their dueAt). */
  enqueue(deliveries: Delivery[]): Promise<void>;
  /**
   * Takes up to `limit` deliveries due at `now`, oldest due first, each leased for leaseMs: until
   * then no other take returns it (every node's take is atomic). A lease that runs out (the node
   * died mid-send) makes it due again: at least once.
   */
  take(now: number, limit: number, leaseMs: number): Promise<Delivery[]>;
  /** Answered or given up: forgets it. */
  complete(id: string): Promise<void>;
  /** Another attempt at dueAt (the delivery as given: attempts counted by the caller). */
  retry(delivery: Delivery): Promise<void>;
  /** Records an attempt in the app's list, which keeps the newest `keep`. */
  record(app: string, attempt: DeliveryAttempt, keep: number): Promise<void>;
  /** The app's list, newest first. */
  recent(app: string): Promise<DeliveryAttempt[]>;
  /** A deleted app: its list (its queued deliveries are dropped when taken: the app is gone). */
  forgetApp(app: string): Promise<void>;
}

/** What an app's sockets get as `identity` (docs/events.md#on-the-apps-sockets). */
export interface IdentityNotice {
  type: string;
  /** The user's id, sealed under SECRET for the app (domain/identity-events.ts opens it). */
  sub: string;
  /** ISO 8601. */
  at: string;
}

/**
 * Whose access may just have ended (docs/realtime.md#users-sockets): a user or an app (each by a
 * keyed hash of its id, never the id itself: these messages wait in the embedded store's notices
 * for a while, and a deleted user's or app's id must not), or a grant (its id, the keyed hash of its
 * code). Every node checks its users' sockets concerned again.
 */
export interface AccessChange {
  user?: string;
  app?: string;
  grant?: string;
}

/** Tells every node's sockets of an app about an identity event (the realtime feed). */
export interface IdentityFeed {
  publish(app: string, notice: IdentityNotice): Promise<void>;
  /** Tells every node that some users' access tokens may have ended (resolves once it is sent). */
  accessChanged(change: AccessChange): Promise<void>;
}
