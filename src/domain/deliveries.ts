// Sending identity events to apps (docs/events.md#delivery): every node runs a sender over the
// store's queue. A take leases what is due to this node alone; each delivery is POSTed to the URL
// the app has registered now (never a redirect's target), signed the Standard Webhooks way or as a
// Back-Channel Logout token, within DELIVERY_TIMEOUT; a 2xx answer ends it, anything else is
// retried with exponential backoff and jitter until DELIVERY_RETRY_FOR after the event. Every
// attempt's answer is kept in the app's list (the last 20), shown on /developers. Nothing here runs
// on a request's path.
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { Webhook } from "standardwebhooks";
import type { AppRecord, Delivery, DeliveryAttempt, DeliveryFailure, Store } from "../store/port.js";
import type { EventEndpoints } from "./event-endpoints.js";
import type { IdentityEvents } from "./identity-events.js";
import { isNotPublic, publicOnlyLookup } from "./public-address.js";

/** Attempts kept per app (the list on /developers). */
export const KEPT_ATTEMPTS = 20;
/** Deliveries taken at once by a node. */
const TAKE = 20;
/** The longest wait between two attempts. */
const MAX_DELAY_MS = 3_600_000;

export interface DeliverySenderDeps {
  store: Store;
  identity: IdentityEvents;
  endpoints: EventEndpoints;
  /** Signs a logout token for the app about the user, or one session of theirs (IdTokens.logoutToken). */
  logoutToken(clientId: string, sub: string, sid?: string): Promise<string>;
  /** DELIVERY_TIMEOUT, DELIVERY_RETRY_BASE, DELIVERY_POLL (ms); DELIVERY_RETRY_FOR (s). */
  timeoutMs: number;
  retryBaseMs: number;
  retryForSeconds: number;
  pollMs: number;
  /** DELIVERY_ALLOW_PRIVATE: deliveries to loopback, private and other non-public addresses too. */
  allowPrivate: boolean;
  /** The queue could not be read or written (what, and why; never a secret). */
  onError(what: string, err: unknown): void;
  now?: () => number;
  random?: () => number;
}

/** The wait before attempt n + 1 after n failed: base·2^(n−1), at most an hour, less up to half at random. */
export function retryDelay(failed: number, baseMs: number, random: () => number = Math.random): number {
  const full = Math.min(MAX_DELAY_MS, baseMs * 2 ** Math.min(failed - 1, 30));
  return Math.round(full * (1 - random() / 2));
}

interface Request {
  headers: Record<string, string>;
  body: string;
}

export class DeliverySender {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(private readonly deps: DeliverySenderDeps) {}

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** Looks at the queue every DELIVERY_POLL, and at once. */
  start(): void {
    this.timer = setInterval(() => this.nudge(), this.deps.pollMs);
    this.timer.unref();
    this.nudge();
  }

  /** Looks at the queue now (a delivery was queued on this node), or again after the current look. */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.round().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.nudge();
      }
    });
  }

  /** Stops looking; resolves once the attempts under way are done (a node as it stops). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  private async round(): Promise<void> {
    try {
      for (;;) {
        const lease = this.deps.timeoutMs + 25_000;
        const batch = await this.deps.store.deliveries.take(this.now(), TAKE, lease);
        await Promise.all(batch.map((d) => this.attempt(d)));
        if (batch.length < TAKE || this.stopped) return;
      }
    } catch (err) {
      this.deps.onError("deliveries: the queue could not be read or written (tried again shortly)", err);
    }
  }

  private async attempt(d: Delivery): Promise<void> {
    const { store } = this.deps;
    const app = await store.apps.get(d.app);
    const url = d.kind === "webhook" ? app?.webhookUrl : app?.backchannelLogoutUri;
    const opened = this.deps.identity.openDelivery(d);
    // The app is gone or no longer registers this URL: nothing to send it to, only there.
    if (!app || !url || !opened) return store.deliveries.complete(d.id);
    const started = this.now();
    const request = await this.request(app, d, opened);
    const answer: PostAnswer = request
      ? await post(url, request, this.deps.timeoutMs, this.deps.allowPrivate)
      : { failure: { code: "secret_unreadable" } };
    const ok = answer.status !== undefined && answer.status >= 200 && answer.status < 300;
    const attempts = d.attempts + 1;
    const dueAt = this.now() + retryDelay(attempts, this.deps.retryBaseMs, this.deps.random);
    const giveUp = !ok && (request === undefined || dueAt > d.createdAt + this.deps.retryForSeconds * 1000);
    const record: DeliveryAttempt = {
      id: d.id,
      kind: d.kind,
      type: d.type,
      url,
      at: started,
      attempt: attempts,
      ...answer,
      ms: this.now() - started,
      outcome: ok ? "delivered" : giveUp ? "failed" : "retrying",
    };
    await store.deliveries.record(d.app, record, KEPT_ATTEMPTS);
    if (ok || giveUp) await store.deliveries.complete(d.id);
    else await store.deliveries.retry({ ...d, attempts, dueAt });
  }

  /** The POST to make: a signed webhook, or a logout token (form); undefined when it cannot be signed. */
  private async request(
    app: AppRecord,
    d: Delivery,
    opened: { sub: string; body: string },
  ): Promise<Request | undefined> {
    if (d.kind === "backchannel") {
      // The queued body is the session's sid, or "" for all of the user's sessions.
      const token = await this.deps.logoutToken(app.clientId, opened.sub, opened.body || undefined);
      return {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ logout_token: token }).toString(),
      };
    }
    const secret = this.deps.endpoints.webhookSecret(app);
    if (!secret) return undefined;
    // The attempt's own time: receivers refuse timestamps more than a few minutes off.
    const at = new Date(this.now());
    return {
      headers: {
        "content-type": "application/json",
        "webhook-id": d.id,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": new Webhook(secret).sign(d.id, at, opened.body),
      },
      body: opened.body,
    };
  }
}

/** What an attempt's POST gave: the answer's status, or why there is none (or why a 3xx fails). */
export interface PostAnswer {
  status?: number;
  failure?: DeliveryFailure;
}

/**
 * POSTs and reads the status only: redirects are not followed (a 3xx is a failure), the whole
 * exchange up to the answer's headers has timeoutMs. Unless allowPrivate, only to a public
 * address (public-address.ts): a URL naming another, or a name resolving to one, is not
 * connected to. A failure is a code (the pages word it), never the URL.
 */
export function post(url: string, r: Request, timeoutMs: number, allowPrivate: boolean): Promise<PostAnswer> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, "");
  if (!allowPrivate && isIP(host) !== 0 && isNotPublic(host)) return Promise.resolve({ failure: NOT_PUBLIC });
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: PostAnswer) => {
      if (settled) return;
      settled = true;
      resolve(answer);
    };
    const req = send(
      target,
      {
        method: "POST",
        headers: { ...r.headers, "user-agent": "Sigil", "content-length": String(Buffer.byteLength(r.body)) },
        signal: AbortSignal.timeout(timeoutMs),
        ...(allowPrivate ? {} : { lookup: publicOnlyLookup }),
      },
      (res) => {
        res.destroy(); // the status is all that is read
        const status = res.statusCode ?? 0;
        done(status >= 300 && status < 400 ? { status, failure: { code: "redirect" } } : { status });
      },
    );
    req.on("error", (err: Error & { code?: string }) => {
      if (err.name === "AbortError" || err.name === "TimeoutError")
        done({ failure: { code: "timeout", ms: timeoutMs } });
      else if (err.code === "ENOTPUBLIC") done({ failure: NOT_PUBLIC });
      // A system code (ECONNREFUSED…) is the same in every language; anything else is left out.
      else
        done({
          failure: { code: "connection", ...(err.code && /^E[A-Z_]+$/.test(err.code) ? { errno: err.code } : {}) },
        });
    });
    req.end(r.body);
  });
}

const NOT_PUBLIC: DeliveryFailure = { code: "not_public" };
