// Client authentication at /token, /revoke and /introspect (RFC 6749 §2.3.1): client_secret_basic
// or client_secret_post, never both; a public client sends its client_id alone ("none"). Failures
// are throttled per client_id and address (docs/http-api.md#sign-in-with-sigil).
import type { Request } from "express";
import type { Apps } from "../../domain/apps.js";
import { SigilError, invalidRequest, rateLimited } from "../../errors.js";
import type { AppRecord, AttemptLimiter, Store } from "../../store/port.js";

export interface ClientCredentials {
  clientId: string;
  /** undefined: none sent (a public client's "none"; a confidential client fails); "" from Basic "id:". */
  clientSecret: string | undefined;
  basic: boolean;
}

/** The one failure counter of client authentication, shared by /token, /revoke and /introspect. */
export function clientAuthLimiter(store: Store): AttemptLimiter {
  return store.limiter({ name: "token-client-auth", points: 19, windowSeconds: 600 });
}

const secretRequired = () => invalidRequest("err.secretRequired");

const invalidClient = (basic: boolean) =>
  new SigilError(
    401,
    "invalid_client",
    "err.invalidClient",
    {},
    basic ? { "WWW-Authenticate": 'Basic realm="sigil"' } : {},
  );

function formDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    throw invalidRequest("err.basicEncoding");
  }
}

/** The credentials of the request; invalid_request when missing, malformed or given twice. */
export function readCredentials(req: Request, body: Record<string, unknown>): ClientCredentials {
  const auth = req.headers.authorization;
  const bodyId = typeof body.client_id === "string" ? body.client_id : undefined;
  const bodySecret = typeof body.client_secret === "string" ? body.client_secret : undefined;
  if (auth !== undefined) {
    const m = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(auth);
    if (!m) throw invalidRequest("err.basicHeader");
    const decoded = Buffer.from(m[1]!, "base64").toString("utf8"); // the group is mandatory
    const i = decoded.indexOf(":");
    if (i < 0) throw invalidRequest("err.basicFormat");
    if (bodySecret !== undefined) throw invalidRequest("err.credentialsTwice");
    const clientId = formDecode(decoded.slice(0, i));
    if (bodyId !== undefined && bodyId !== clientId) throw invalidRequest("err.clientIdDiffers");
    return { clientId, clientSecret: formDecode(decoded.slice(i + 1)), basic: true };
  }
  if (!bodyId) throw invalidRequest("err.required", { name: "client_id" });
  return { clientId: bodyId, clientSecret: bodySecret || undefined, basic: false };
}

const tooMany = (ms: number) => rateLimited(ms / 1000, "err.clientAuthThrottled");

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
export async function authenticateClient(
  apps: Apps,
  limiter: AttemptLimiter,
  creds: ClientCredentials,
  address: string,
): Promise<AppRecord> {
  const secret = creds.clientSecret;
  if (!secret) {
    // No secret, or Basic with an empty one ("client_id:"): a public client's way.
    const known = creds.clientId.length <= 64 ? await apps.byClientId(creds.clientId) : null;
    if (known?.public) return known;
    if (known && secret === undefined) throw secretRequired();
  }
  const id = `${creds.clientId.slice(0, 64)}|${address}`;
  const state = await limiter.check(id);
  if (!state.allowed) throw tooMany(state.retryAfterMs);
  const app =
    secret && creds.clientId.length <= 64 && secret.length <= 256
      ? await apps.authenticate(creds.clientId, secret)
      : null;
  if (app) return app;
  const failed = await limiter.consume(id);
  if (!failed.allowed) throw tooMany(failed.retryAfterMs);
  throw invalidClient(creds.basic);
}
