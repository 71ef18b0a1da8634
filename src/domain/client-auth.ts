// Client authentication at /token, /revoke and /introspect (RFC 6749 §2.3.1): the credentials the
// HTTP side read (http/oauth/client-auth.ts), checked against the app. Failures are throttled per
// client_id and address (LIMITS.clientAuth; docs/http-api.md#sign-in-with-sigil), one count for
// the three endpoints.
import { SigilError, invalidRequest, rateLimited } from "../errors.js";
import type { AppRecord, AttemptLimiter, Store } from "../store/port.js";
import type { Apps } from "./apps.js";
import { LIMITS } from "./limits.js";

export interface ClientCredentials {
  clientId: string;
  /** undefined: none sent (a public client's "none"; a confidential client fails); "" from Basic "id:". */
  clientSecret: string | undefined;
  basic: boolean;
}

const secretRequired = () => invalidRequest("err.secretRequired");

/**
 * 401 invalid_client, with a Basic challenge when the client sent Basic credentials (RFC 6749
 * §5.2). Why, in the message: "err.invalidClient" (unknown client or wrong secret, counted as a
 * failure) or "err.appDisabled" (right credentials of an app an operator disabled: not counted).
 */
const clientRefused = (messageId: "err.invalidClient" | "err.appDisabled", basic: boolean) =>
  new SigilError(401, "invalid_client", messageId, {}, basic ? { "WWW-Authenticate": 'Basic realm="sigil"' } : {});

const tooMany = (ms: number) => rateLimited(ms / 1000, "err.clientAuthThrottled");

export class ClientAuth {
  /** The one failure counter of client authentication, shared by /token, /revoke and /introspect. */
  private readonly failures: AttemptLimiter;

  constructor(private readonly deps: { store: Store; apps: Apps }) {
    this.failures = deps.store.limiter(LIMITS.clientAuth);
  }

  /**
   * The authenticated app; 401 invalid_client on failure, 429 once failures pile up. Only failures
   * count (secrets are 256 random bits, so this is about abuse, not guessing): a busy app making
   * many concurrent token requests from one address is never throttled by its own successes.
   *
   * A public client sending its client_id alone cannot fail and is never throttled: there is no
   * secret to guess, and its users share addresses (offices, carrier NAT), so a limit there would
   * only let one person lock out an app's other users. A secret sent for a public client is a
   * failure like a wrong one. No secret for a confidential client: invalid_request (as ever); for an
   * unknown client id (a deleted app): invalid_client, counted.
   */
  async authenticate(creds: ClientCredentials, address: string): Promise<AppRecord> {
    const { apps } = this.deps;
    const secret = creds.clientSecret;
    if (!secret) {
      // No secret, or Basic with an empty one ("client_id:"): a public client's way.
      const known = creds.clientId.length <= 64 ? await apps.byClientId(creds.clientId) : null;
      if (known?.public) {
        if (known.disabled === true) throw clientRefused("err.appDisabled", creds.basic);
        return known;
      }
      if (known && secret === undefined) throw secretRequired();
    }
    const id = `${creds.clientId.slice(0, 64)}|${address}`;
    // The throttle's state and the app are read together (one trip to the store on Redis, its
    // automatic pipeline), but the state is looked at first: a throttled id learns nothing of
    // whether its secret was right.
    const [state, app] = await Promise.all([
      this.failures.check(id),
      secret && creds.clientId.length <= 64 && secret.length <= 256 ? apps.authenticate(creds.clientId, secret) : null,
    ]);
    if (!state.allowed) throw tooMany(state.retryAfterMs);
    if (app) {
      if (app.disabled === true) throw clientRefused("err.appDisabled", creds.basic);
      return app;
    }
    const failed = await this.failures.consume(id);
    if (!failed.allowed) throw tooMany(failed.retryAfterMs);
    throw clientRefused("err.invalidClient", creds.basic);
  }
}
