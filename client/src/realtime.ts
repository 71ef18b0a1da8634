// The realtime channel (docs/realtime.md): a Socket.IO connection authenticated with a CUSTOM TOKEN
// (an app's server), or with a signed-in user's access token (a page of the app: `accessToken`,
// a string or a function that returns the current one, asked again before every reconnection).
//
// Resume: the connection remembers the id of the last `challenge:result` it delivered and sends
// it as `since` in the handshake of every (re)connection — `auth` is given as a callback, which
// Socket.IO calls again before each attempt. The service replays what came after it, in order,
// then says `ready` with `recovered`. An event at or before the last delivered id is dropped, so
// an app sees each event once and in order; `ready` with `recovered: false` tells it to resync.
//
// Channels: subscribe(channel, handler, {since?, presence?}) subscribes now (or once connected) and
// again after every reconnection, each channel with the id of the last message it delivered (and
// its presence flag), so the service replays what the channel had meanwhile; a message at or before
// that id is dropped. presence(channel) asks who is subscribed to a channel, on every node.
//
// Socket.IO reconnects by itself after network failures but not after the server closed the
// socket (a drain, a slow reader); the service asks clients to reconnect then, so this does it,
// with backoff. A refused token (connect_error `invalid_token`) is final: `error`, no retries.
// A user's socket is told why the server ends it (`ended`): a revoked token (or access that ended)
// is final too; an expired one is followed by a reconnection, with a new token when accessToken is
// a function (else it is refused: `error`).
import { io, type ManagerOptions, type Socket, type SocketOptions } from "socket.io-client";
import type {
  ChallengeResultEvent,
  ClientToServerEvents,
  EndedEvent,
  HandshakeAuth,
  MessageEvent,
  NewChallengePayload,
  NewChallengeResponse,
  PresenceEvent,
  PresenceMember,
  PresenceResponse,
  ReadyEvent,
  ServerToClientEvents,
  SolveResponse,
  SubscribeResponse,
} from "../../src/protocol.js";
import { TypedEmitter } from "./emitter.js";
import { isErrorObject, SigilError } from "./errors.js";
import { isNewEvent } from "./event-ids.js";
import { isObject } from "./http.js";

export interface RealtimeOptions {
  /** Address of the service (`{base_url}`); a path prefix is kept for the Socket.IO path. */
  baseUrl: string;
  /** A CUSTOM TOKEN of your app (from /developers or `sigil tokens create`), for its servers. */
  token?: string;
  /**
   * Instead of `token`, in a page of your app: the signed-in user's access token, granted the
   * scope `realtime`, or a function that returns the current one (called before every
   * (re)connection, so a refreshed token is used). A function that throws counts as a refused token.
   */
  accessToken?: string | (() => string | Promise<string>);
  /** Resume after this event id (e.g. saved from `lastEventId` by an earlier run). */
  since?: string;
  /** Milliseconds to wait for an acknowledgement of challenge:new / challenge:solve. Default 10 s. */
  ackTimeout?: number;
  /** Extra Socket.IO options (e.g. `transports: ["websocket"]`); auth, path and forceNew are set here. */
  socket?: Partial<ManagerOptions & SocketOptions>;
}

export interface RealtimeEvents {
  /** A solve attempt on one of your app's challenges, on whichever node it happened. */
  "challenge:result": (event: ChallengeResultEvent) => void;
  /** After each (re)connection and its replay. `recovered: false`: events may be missing, resync. */
  ready: (event: ReadyEvent) => void;
  /** The connection was refused for good (e.g. `invalid_token`: unknown, expired, revoked). */
  error: (error: SigilError) => void;
  /**
   * A user's connection (`accessToken`) is being ended by the service: `expired` (it reconnects
   * with the token `accessToken` gives now), or `revoked` (the token was revoked, or the user's
   * access to the app ended: final, `error` follows).
   */
  ended: (event: EndedEvent) => void;
  /** The connection dropped; it is being re-established unless `close()` was called or `error` fired. */
  disconnect: (reason: string) => void;
  /**
   * A channel's subscription was made (again, after a reconnection). `recovered: false` after a
   * `since`: messages may be missing (trimmed from the history), resync that channel.
   */
  subscribed: (event: { channel: string; recovered: boolean }) => void;
  /** The service refused a subscription (`forbidden`, `invalid_request`); the channel is dropped. */
  "subscribe:error": (event: { channel: string; error: SigilError }) => void;
  /**
   * On a channel subscribed to with `presence: true`: a member's first socket subscribed to it (on
   * any node). `{channel, token}` for a CUSTOM TOKEN's sockets, `{channel, sub}` for a user's.
   */
  join: (event: PresenceEvent) => void;
  /** On a channel subscribed to with `presence: true`: a member's last socket left it (or its node died). */
  leave: (event: PresenceEvent) => void;
}

/** A handler of one channel's messages. */
export type MessageHandler = (message: MessageEvent) => void;

export interface SubscribeOptions {
  /** Resume after this message id of the channel (e.g. saved from `lastMessageId(channel)`). */
  since?: string;
  /** Also get the channel's `join` and `leave` events (kept across reconnections). */
  presence?: boolean;
}

interface ChannelState {
  handlers: Set<MessageHandler>;
  /** The id of the last message delivered (or the `since` given). */
  lastId: string | undefined;
  /** Subscribed with `presence: true` (by any of its handlers). */
  presence: boolean;
}

type SigilSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 5000;

const isKey = (v: unknown): v is NewChallengeResponse => isObject(v) && typeof v.key === "string";
const isSolved = (v: unknown): v is SolveResponse => isObject(v) && typeof v.correct === "boolean";
const isSubscribed = (v: unknown): v is SubscribeResponse => isObject(v) && typeof v.recovered === "boolean";
/** What presence() gives: the members listed (at most 1,000), and how many the channel has in all. */
export type PresenceList = PresenceMember[] & { total: number };

const isPresence = (v: unknown): v is PresenceResponse => isObject(v) && Array.isArray(v.members);

export class RealtimeConnection extends TypedEmitter<RealtimeEvents> {
  /** The id of the last `challenge:result` delivered; persist it to resume in a later run. */
  lastEventId: string | undefined;
  private readonly socket: SigilSocket;
  private readonly ackTimeout: number;
  private closed = false;
  private refused = false;
  private retries = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly channels = new Map<string, ChannelState>();

  constructor(options: RealtimeOptions) {
    super();
    this.lastEventId = options.since;
    this.ackTimeout = options.ackTimeout ?? 10_000;
    const url = new URL(options.baseUrl);
    const { token, accessToken } = options;
    if ((token === undefined) === (accessToken === undefined))
      throw new TypeError("connect: give either token (a CUSTOM TOKEN) or accessToken (a user's), not both.");
    this.socket = io(url.origin, {
      ...options.socket,
      path: `${url.pathname.replace(/\/+$/, "")}/socket.io/`,
      // Own manager: closing this connection must not close another one to the same service.
      forceNew: true,
      auth: (cb) => {
        if (accessToken !== undefined) {
          currentToken(accessToken).then(
            (t) => cb({ access_token: t } satisfies HandshakeAuth),
            () => cb({ access_token: "" }),
          );
          return;
        }
        const auth: HandshakeAuth =
          this.lastEventId === undefined ? { token: token ?? "" } : { token: token ?? "", since: this.lastEventId };
        cb(auth);
      },
    });
    this.socket.on("challenge:result", (event) => this.onResult(event));
    this.socket.on("ready", (event) => {
      this.retries = 0;
      this.emit("ready", event);
    });
    this.socket.on("message", (m) => this.onMessage(m));
    this.socket.on("join", (e) => this.onPresence("join", e));
    this.socket.on("leave", (e) => this.onPresence("leave", e));
    this.socket.on("ended", (e) => this.onEnded(e));
    // Each (re)connection is a new session on the service: subscribe to every channel again.
    this.socket.on("connect", () => {
      for (const channel of this.channels.keys()) this.sendSubscribe(channel);
    });
    this.socket.on("connect_error", (err) => this.onConnectError(err));
    this.socket.on("disconnect", (reason) => this.onDisconnect(reason));
  }

  /** True while the socket is connected (events flow after `ready`). */
  get connected(): boolean {
    return this.socket.connected;
  }

  /** Creates a challenge owned by this token's app; its solve attempts arrive as `challenge:result`. */
  async createChallenge(payload: NewChallengePayload): Promise<NewChallengeResponse> {
    const reply = await this.call(() => this.socket.timeout(this.ackTimeout).emitWithAck("challenge:new", payload));
    return this.check(reply, isKey, "challenge:new");
  }

  /** Tries an answer; `{correct}` (a wrong answer is not an error). */
  async solve(key: string, a: string): Promise<SolveResponse> {
    const reply = await this.call(() =>
      this.socket.timeout(this.ackTimeout).emitWithAck("challenge:solve", { key, a }),
    );
    return this.check(reply, isSolved, "challenge:solve");
  }

  /**
   * Subscribes to one of the app's channels: `handler` gets each message `{channel, id, data, at}`
   * once, in order, including after reconnections (the client resumes from the last one). Returns
   * a function that removes this handler (and unsubscribes once a channel has none left).
   */
  subscribe(channel: string, handler: MessageHandler, options: SubscribeOptions = {}): () => void {
    let state = this.channels.get(channel);
    // A new channel, or presence asked for on one subscribed without it: (re)subscribe.
    const send = state === undefined || (options.presence === true && !state.presence);
    if (!state) {
      state = { handlers: new Set(), lastId: options.since, presence: false };
      this.channels.set(channel, state);
    }
    if (options.presence === true) state.presence = true;
    state.handlers.add(handler);
    if (send && this.socket.connected) this.sendSubscribe(channel);
    return () => {
      const s = this.channels.get(channel);
      if (!s?.handlers.delete(handler) || s.handlers.size > 0) return;
      this.channels.delete(channel);
      if (this.socket.connected) this.socket.emit("unsubscribe", { channel }, () => {});
    };
  }

  /**
   * Who is subscribed to one of the app's channels, on every node: `[{token, connections}]` for
   * CUSTOM TOKENs' sockets (the token's id), `[{sub, connections}]` for users'. Any channel the
   * token may subscribe to, whether this connection is subscribed to it or not. At most 1,000: the
   * first by id, tokens before users; the list's `total` says how many members the channel has.
   */
  async presence(channel: string): Promise<PresenceList> {
    const reply = await this.call(() => this.socket.timeout(this.ackTimeout).emitWithAck("presence", { channel }));
    const { members, total } = this.check(reply, isPresence, "presence");
    // A server from before `total` lists every member.
    return Object.assign([...members], { total: typeof total === "number" ? total : members.length });
  }

  /** The id of the last message of a channel delivered (persist it to resume in a later run). */
  lastMessageId(channel: string): string | undefined {
    return this.channels.get(channel)?.lastId;
  }

  /** Closes the connection for good. */
  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.socket.disconnect();
  }

  private onResult(event: ChallengeResultEvent): void {
    // The service replays without duplicates; this guard keeps the promise even if a live event
    // and a replayed one were to cross during a reconnect.
    if (!isNewEvent(event.id, this.lastEventId)) return;
    this.lastEventId = event.id;
    this.emit("challenge:result", event);
  }

  private sendSubscribe(channel: string): void {
    const state = this.channels.get(channel);
    if (!state) return;
    const since = state.lastId;
    const payload = {
      channel,
      ...(since === undefined ? {} : { since }),
      ...(state.presence ? { presence: true } : {}),
    };
    this.socket.emit("subscribe", payload, (reply) => {
      if (this.channels.get(channel) !== state) return; // unsubscribed meanwhile
      if (isSubscribed(reply)) {
        this.emit("subscribed", { channel, recovered: reply.recovered });
        return;
      }
      this.channels.delete(channel);
      const error = isErrorObject(reply)
        ? SigilError.fromObject(reply)
        : new SigilError(
            "invalid_response",
            "The service's acknowledgement of subscribe is not in the format the service documents.",
          );
      this.emit("subscribe:error", { channel, error });
    });
  }

  private onMessage(m: MessageEvent): void {
    const state = this.channels.get(m.channel);
    // A message replayed and live at once during a reconnection is delivered once.
    if (!state || !isNewEvent(m.id, state.lastId)) return;
    state.lastId = m.id;
    for (const handler of [...state.handlers]) {
      try {
        handler(m);
      } catch (err) {
        setTimeout(() => {
          throw err;
        }, 0);
      }
    }
  }

  private onPresence(type: "join" | "leave", e: PresenceEvent): void {
    // Only for channels subscribed to with presence (an event racing an unsubscribe is dropped).
    if (isObject(e) && this.channels.get(e.channel)?.presence) this.emit(type, e);
  }

  private onConnectError(err: Error & { data?: unknown }): void {
    // Socket.IO keeps retrying transport failures by itself (socket.active stays true); a refusal
    // by the service's handshake check is final.
    if (this.socket.active) return;
    this.refused = true;
    const error = isErrorObject(err.data)
      ? SigilError.fromObject(err.data)
      : new SigilError(err.message || "network_error", "The service refused the connection.");
    this.emit("error", error);
  }

  private onEnded(event: EndedEvent): void {
    this.emit("ended", event);
    if (event.reason !== "revoked" || this.refused) return;
    // No retry: the token is refused from now on, and so is any the user's access would give.
    this.refused = true;
    this.emit("error", new SigilError("invalid_token", "The access token was revoked, or the user's access ended."));
  }

  private onDisconnect(reason: string): void {
    this.emit("disconnect", reason);
    if (this.closed || this.refused || reason !== "io server disconnect") return;
    // The server closed the socket (drain, slow reader, revoked token): come back with `since`.
    // A revoked token is then refused at the handshake, which ends the retries.
    const base = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** this.retries++);
    this.retryTimer = setTimeout(
      () => {
        if (!this.closed) this.socket.connect();
      },
      base / 2 + Math.random() * (base / 2),
    );
  }

  private async call<T>(emit: () => Promise<T>): Promise<T> {
    if (this.closed) throw new SigilError("closed", "The realtime connection was closed.");
    if (this.refused) throw new SigilError("invalid_token", "The realtime connection was refused.");
    try {
      return await emit();
    } catch {
      // emitWithAck rejects on its timeout, or when the socket closes before the ack.
      if (this.closed) throw new SigilError("closed", "The realtime connection was closed.");
      throw new SigilError("timeout", `No acknowledgement from the service within ${this.ackTimeout} ms.`);
    }
  }

  private check<T>(reply: unknown, valid: (v: unknown) => v is T, what: string): T {
    if (isErrorObject(reply)) throw SigilError.fromObject(reply);
    if (!valid(reply))
      throw new SigilError(
        "invalid_response",
        `The service's acknowledgement of ${what} is not in the format the service documents.`,
      );
    return reply;
  }
}

/** The access token to send: the one given, or what the function gives now. */
async function currentToken(t: string | (() => string | Promise<string>)): Promise<string> {
  return typeof t === "function" ? t() : t;
}

/** Opens a realtime connection (it connects at once and reconnects by itself). */
export function connectRealtime(options: RealtimeOptions): RealtimeConnection {
  return new RealtimeConnection(options);
}
