// Wire types shared by the server and the bundled client (client/ imports them with
// `import type`). Types only: nothing here runs. docs/http-api.md#sign-in-with-sigil, docs/http-api.md#challenges, docs/realtime.md.

/** The error codes the server sends (docs/errors.md, docs/http-api.md#sign-in-with-sigil). */
export type ErrorCode =
  | "invalid_request"
  | "invalid_grant"
  | "invalid_scope"
  | "unsupported_grant_type"
  | "invalid_client"
  | "invalid_token"
  | "insufficient_scope"
  | "unauthorized_client"
  | "access_denied"
  // Device authorization grant (RFC 8628 §3.5), from /token only.
  | "authorization_pending"
  | "slow_down"
  | "expired_token"
  | "forbidden"
  | "reauth_required"
  | "unsupported_response_type"
  | "not_found"
  | "method_not_allowed"
  | "request_too_large"
  | "expectation_failed"
  | "rate_limited"
  | "unavailable"
  | "server_error";

/** Every JSON error body and every socket error ack (docs/errors.md). */
export interface ErrorObject {
  error: ErrorCode;
  error_description: string;
}

// ---- HTTP payloads ----------------------------------------------------------------------------

export interface NewChallengeResponse {
  key: string;
}

export interface SolveResponse {
  correct: boolean;
}

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
  /** When the granted scope holds offline_access (docs/http-api.md#refresh-tokens). */
  refresh_token?: string;
}

/** The token response of an OpenID Connect request (scope holds openid): §3's, plus the ID token. */
export interface OpenIdTokenResponse extends TokenResponse {
  id_token: string;
}

export interface UserInfo {
  id: string;
  username: string;
  display_name: string;
  /** Absolute URL of the user's picture (uploaded or generated). */
  profile_picture: string;
}

// ---- Realtime channel (Socket.IO v4) ---------------------------------------------------------

/**
 * `auth` of the Socket.IO handshake: a CUSTOM TOKEN (the app's servers), or a signed-in user's
 * access token with the scope `realtime` (docs/realtime.md#users-sockets).
 */
export type HandshakeAuth =
  | {
      token: string;
      /** The id of the last event the client saw; events after it are replayed first. */
      since?: string;
    }
  | { access_token: string };

/** One solve attempt on a challenge of the socket's app. */
export interface ChallengeResultEvent {
  /** `<milliseconds>-<sequence>`, increasing within an app. */
  id: string;
  key: string;
  correct: boolean;
  /** ISO 8601 time of the attempt. */
  at: string;
}

export interface ReadyEvent {
  /** client_id of the socket's app. */
  app: string;
  /** true only when `since` was given and everything after it was replayed. */
  recovered: boolean;
}

/** One message of a channel the socket subscribed to (docs/realtime.md#channels). */
export interface MessageEvent {
  channel: string;
  /** `<milliseconds>-<sequence>`, increasing within the channel. */
  id: string;
  /** The JSON value the app published. */
  data: unknown;
  /** ISO 8601 time it was published. */
  at: string;
}

export interface SubscribePayload {
  channel: string;
  /** The id of the last message of this channel the client saw. */
  since?: string;
  /** Also receive `join` and `leave` for the channel's members (docs/realtime.md#presence). */
  presence?: boolean;
}

export interface SubscribeResponse {
  /** true only when `since` was given and every message after it was still in the history. */
  recovered: boolean;
}

export interface UnsubscribePayload {
  channel: string;
}

export interface PresencePayload {
  channel: string;
}

/**
 * A member of a channel: a user (`sub`) for sockets of a signed-in user, a CUSTOM TOKEN (its id,
 * never the token) for a token's sockets.
 */
export type PresenceMemberId = { sub: string; token?: never } | { token: string; sub?: never };

/** A member and how many of its sockets are subscribed to the channel, on every node. */
export type PresenceMember = PresenceMemberId & { connections: number };

export interface PresenceResponse {
  /** At most 1,000: the first by member key (tokens' ids, then users' subs, in code point order). */
  members: PresenceMember[];
  /** How many members the channel has, listed or not. */
  total: number;
}

/** `join` (a member's first socket subscribed) and `leave` (its last one went), to `presence: true` subscriptions. */
export type PresenceEvent = PresenceMemberId & { channel: string };

/** POST /realtime/publish's answer: the messages' ids, in the order sent. */
export interface PublishResponse {
  ids: string[];
}

export interface NewChallengePayload {
  question: string;
  answer: string;
  ttl?: number;
}

export interface SolvePayload {
  key: string;
  a: string;
}

export type Ack<T> = (reply: T | ErrorObject) => void;

/**
 * Something happened to one of the app's users (docs/events.md#on-the-apps-sockets): to the app's
 * CUSTOM TOKEN sockets connected at the time (live only: the webhook is the durable way).
 */
export interface IdentityEvent {
  type: "consent.withdrawn" | "session.ended" | "user.disabled" | "user.deleted";
  /** The user's id (the `sub` of their ID tokens). */
  sub: string;
  /** ISO 8601. */
  at: string;
}

/**
 * A user's socket is about to be disconnected by the server (docs/realtime.md#users-sockets):
 * its access token expired (get a new one, connect again), or was revoked, or the user's access to
 * the app ended (consent withdrawn, signed out everywhere, disabled, deleted: sign in again).
 */
export interface EndedEvent {
  reason: "expired" | "revoked";
}

export interface ServerToClientEvents {
  "challenge:result": (event: ChallengeResultEvent) => void;
  ready: (event: ReadyEvent) => void;
  message: (event: MessageEvent) => void;
  identity: (event: IdentityEvent) => void;
  join: (event: PresenceEvent) => void;
  leave: (event: PresenceEvent) => void;
  ended: (event: EndedEvent) => void;
}

export interface ClientToServerEvents {
  "challenge:new": (payload: NewChallengePayload, ack: Ack<NewChallengeResponse>) => void;
  "challenge:solve": (payload: SolvePayload, ack: Ack<SolveResponse>) => void;
  subscribe: (payload: SubscribePayload, ack: Ack<SubscribeResponse>) => void;
  unsubscribe: (payload: UnsubscribePayload, ack: Ack<Record<string, never>>) => void;
  presence: (payload: PresencePayload, ack: Ack<PresenceResponse>) => void;
}
