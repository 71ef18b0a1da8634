// socket.io-client helpers for channel tests: a client that records everything it receives.
import { io as connect, type Socket } from "socket.io-client";
import type {
  ChallengeResultEvent,
  ClientToServerEvents,
  ErrorObject,
  MessageEvent,
  PresenceEvent,
  ReadyEvent,
  ServerToClientEvents,
} from "../../src/protocol.js";
import { http, type TestResponse } from "./http.js";
import { waitFor } from "./wait.js";

export type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

export interface ChannelClient {
  socket: ClientSocket;
  events: ChallengeResultEvent[];
  readies: ReadyEvent[];
  /** Channel messages (`message`), as they came. */
  messages: MessageEvent[];
  /** `join` and `leave` of presence subscriptions, as they came: "join <channel> <token id or sub>". */
  presence: string[];
  disconnects: string[];
  /** Resolves when at least n events arrived (rejects after ms). */
  waitEvents(n: number, ms?: number): Promise<ChallengeResultEvent[]>;
  waitReady(ms?: number): Promise<ReadyEvent>;
  /** Resolves once n channel messages have come (all of them so far). */
  waitMessages(n: number, ms?: number): Promise<MessageEvent[]>;
  waitDisconnect(ms?: number): Promise<string>;
  /**
   * Waits for the first event of challenge `key` (a marker the test solves after everything it
   * expects) and resolves with the events that came before it: what "nothing else arrived" means
   * without a fixed sleep, since a socket's events come in order.
   */
  eventsBefore(key: string, ms?: number): Promise<ChallengeResultEvent[]>;
  /** The id of the last event seen. */
  lastId(): string | undefined;
  close(): void;
}

const open = new Set<ClientSocket>();
/** Disconnects every client these helpers opened: after each test (test/support/hooks.ts). */
export function closeChannelClients(): void {
  for (const s of open) s.disconnect();
  open.clear();
}

/** What a client has seen so far, for the message of a wait that gave up. */
function seen(c: ChannelClient): string {
  const events = c.events.map((e) => `${e.key.slice(0, 8)}:${e.correct ? "right" : "wrong"}`);
  const state = c.socket.connected ? "connected" : `not connected (disconnects: ${c.disconnects.join(", ") || "none"})`;
  return `${c.events.length} event(s) arrived [${events.join(", ")}], ${c.readies.length} ready, the socket ${state}`;
}

export interface ConnectOptions {
  token?: string;
  since?: string;
  /** Send the token as `Authorization: Bearer` instead of auth.token. */
  viaHeader?: boolean;
  reconnection?: boolean;
  /** Called for the auth of each (re)connection instead of the fixed token/since. */
  auth?: (cb: (data: object) => void) => void;
  /** Extra handshake headers (e.g. X-Forwarded-For as a proxy would add it). */
  headers?: Record<string, string>;
}

export function channelClient(url: string, opts: ConnectOptions = {}): ChannelClient {
  const auth =
    opts.auth ??
    (opts.viaHeader || opts.token === undefined
      ? {}
      : { token: opts.token, ...(opts.since ? { since: opts.since } : {}) });
  const socket: ClientSocket = connect(url, {
    path: "/socket.io/",
    transports: ["websocket"],
    forceNew: true,
    reconnection: opts.reconnection ?? false,
    reconnectionDelay: 50,
    reconnectionDelayMax: 200,
    auth,
    extraHeaders: { ...opts.headers, ...(opts.viaHeader ? { authorization: `Bearer ${opts.token}` } : {}) },
  });
  open.add(socket);
  const c: ChannelClient = {
    socket,
    events: [],
    readies: [],
    messages: [],
    presence: [],
    disconnects: [],
    waitEvents: (n, ms = 3000) =>
      waitFor(`${n} challenge:result event(s)`, () => (c.events.length >= n ? c.events : undefined), {
        ms,
        everyMs: 5,
        seen: () => seen(c),
      }),
    waitMessages: (n, ms = 3000) =>
      waitFor(`${n} channel message(s)`, () => (c.messages.length >= n ? c.messages : undefined), {
        ms,
        everyMs: 5,
        seen: () => `${c.messages.length} message(s): ${c.messages.map((m) => `${m.channel}#${m.id}`).join(", ")}`,
      }),
    waitReady: (ms = 3000) =>
      waitFor("ready", () => c.readies[c.readies.length - 1], { ms, everyMs: 5, seen: () => seen(c) }),
    waitDisconnect: (ms = 3000) =>
      waitFor("a disconnect", () => c.disconnects[c.disconnects.length - 1], { ms, everyMs: 5, seen: () => seen(c) }),
    eventsBefore: (key, ms = 3000) =>
      waitFor(
        `the marker event of ${key}`,
        () => {
          const i = c.events.findIndex((e) => e.key === key);
          return i < 0 ? undefined : c.events.slice(0, i);
        },
        { ms, everyMs: 5, seen: () => seen(c) },
      ),
    lastId: () => c.events[c.events.length - 1]?.id,
    close: () => {
      socket.disconnect();
      open.delete(socket);
    },
  };
  socket.on("challenge:result", (e) => c.events.push(e));
  socket.on("ready", (r) => c.readies.push(r));
  socket.on("message", (m) => c.messages.push(m));
  const told = (type: string) => (e: PresenceEvent) =>
    c.presence.push(`${type} ${e.channel} ${e.sub !== undefined ? `sub:${e.sub}` : String(e.token)}`);
  socket.on("join", told("join"));
  socket.on("leave", told("leave"));
  socket.on("disconnect", (reason) => c.disconnects.push(reason));
  return c;
}

/** Connects and resolves once `ready` arrived. */
export async function readyClient(url: string, opts: ConnectOptions = {}): Promise<ChannelClient> {
  const c = channelClient(url, opts);
  await c.waitReady();
  return c;
}

/**
 * Resolves with the connect_error of a refused connection; rejects if it connects, or if neither
 * happened within ms (the client's own connect timeout is 20 s, as long as a whole test).
 */
export function refusal(
  url: string,
  opts: ConnectOptions = {},
  ms = 3000,
): Promise<{ message: string; data: ErrorObject }> {
  const c = channelClient(url, opts);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      c.close();
      reject(new Error(`timed out after ${ms} ms waiting for the refusal (connect_error) of ${url}`));
    }, ms);
    c.socket.on("connect", () => {
      clearTimeout(timer);
      c.close();
      reject(new Error("the connection was accepted"));
    });
    c.socket.on("connect_error", (err: Error & { data?: ErrorObject }) => {
      clearTimeout(timer);
      c.close();
      resolve({ message: err.message, data: err.data as ErrorObject });
    });
  });
}

/**
 * Emits with an ack and resolves with the reply; rejects after ms without one (or when the socket
 * closes first), with an error that names the event it was waiting for.
 */
export async function ackWithin<T = unknown>(
  socket: ClientSocket | Socket,
  ms: number,
  event: string,
  ...args: unknown[]
): Promise<T> {
  try {
    return (await (socket as unknown as Socket).timeout(ms).emitWithAck(event, ...args)) as T;
  } catch (err) {
    const payload = JSON.stringify(args)?.slice(0, 200);
    throw new Error(`waiting for the ack of ${event.slice(0, 60)}(${payload}): ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/** Emits with an ack and resolves with the reply (rejects after 3 s, naming the event). */
export function call<T = unknown>(c: ChannelClient, event: string, ...args: unknown[]): Promise<T> {
  return ackWithin<T>(c.socket, 3000, event, ...args);
}

export { sleep } from "./wait.js";

/** POST /realtime/publish as the app, with a CUSTOM TOKEN made with --publish: the answer, as it came. */
export function publishWith(url: string, token: string, body: unknown): Promise<TestResponse> {
  return http(url, "/realtime/publish", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
}
