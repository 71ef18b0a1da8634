// Device authorization (RFC 8628; docs/http-api.md#device-authorization): a device without a
// browser asks for a pair of codes, its user types the short one on /device, signs in and
// allows; the device polls /token with the long one. The store holds keyed hashes of both.
// An approved request becomes an authorization code of the user's grant at the poll that takes
// it, redeemed at once: the tokens, their refresh, revocation and consent withdrawal are the
// code's (domain/oauth.ts), with nothing of their own.
import { randomInt } from "node:crypto";
import { SigilError, invalidGrant, rateLimited } from "../errors.js";
import type { AttemptLimiter, DeviceApproval, DeviceCodeRecord, Store } from "../store/port.js";
import { LIMITS } from "./limits.js";
import { grantedScopes } from "./oidc.js";
import { keyedHash, randomToken } from "./secrets.js";

/** Twenty consonants (no vowel, no Y): no word can be spelled, and nothing reads as another letter. */
export const USER_CODE_LETTERS = "BCDFGHJKLMNPQRSTVWXZ";
/** RFC 8628 §3.2's default, the seconds a device waits between polls. */
export const POLL_INTERVAL = 5;
/** How long a request's record outlives it, so that a late poll hears expired_token. */
const KEEP_AFTER_EXPIRY = 600;
/** The redirect URL of the code an approval becomes: none was sent, and none can be (RFC 8628 grant type). */
export const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

/** "bcdf-ghjk", "BCDF GHJK", "BCDFGHJK" → "BCDFGHJK"; null when it cannot be a user code. */
export function normalizeUserCode(input: unknown): string | null {
  if (typeof input !== "string" || input.length > 40) return null;
  const code = input.replace(/[\s-]/g, "").toUpperCase();
  return code.length === 8 && [...code].every((c) => USER_CODE_LETTERS.includes(c)) ? code : null;
}

/** How a user code is shown: XXXX-XXXX. */
export const showUserCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;

export interface DeviceFlowDeps {
  store: Store;
  secret: string;
  /** DEVICE_CODE_TTL (docs/settings.md). */
  ttl: number;
}

/** What the flow needs of domain/oauth.ts (which holds the flow: an interface, not an import, to keep the two apart). */
export interface CodeTrader<Issued> {
  issueCode(input: {
    clientId: string;
    redirectUri: string;
    redirectUriGiven: boolean;
    userId: string;
    scope?: string[] | undefined;
    authTime?: number | undefined;
    amr?: string[] | undefined;
    sid?: string | undefined;
  }): Promise<string | null>;
  redeem(input: { code: string; clientId: string; redirectUri: undefined; codeVerifier: undefined }): Promise<Issued>;
}

export class DeviceFlow<Issued> {
  private readonly perAddress: AttemptLimiter;
  private readonly overall: AttemptLimiter;
  private readonly made: AttemptLimiter;

  constructor(
    private readonly deps: DeviceFlowDeps,
    private readonly oauth: CodeTrader<Issued>,
  ) {
    this.perAddress = deps.store.limiter(LIMITS.deviceCodePerAddress);
    this.overall = deps.store.limiter(LIMITS.deviceCodeOverall);
    this.made = deps.store.limiter(LIMITS.deviceAuthorizationsPerAddress);
  }

  private hash(kind: string, value: string): string {
    return keyedHash(this.deps.secret, kind, value);
  }

  /**
   * A new request of the app for these scopes from `address` (RFC 8628 §3.2's answer, but the
   * URLs); 429 past LIMITS.deviceAuthorizationsPerAddress, nothing stored.
   */
  async start(clientId: string, scopeParam: string | undefined, address: string) {
    const limit = await this.made.consume(address);
    if (!limit.allowed) throw rateLimited(limit.retryAfterMs / 1000, "err.deviceAuthorizationThrottled");
    const asked = grantedScopes(scopeParam);
    const record: DeviceCodeRecord = {
      clientId,
      ...(asked.openid ? { scope: asked.scopes } : {}),
      expiresAt: Date.now() + this.deps.ttl * 1000,
    };
    // A user code in use is drawn again; with 2.56e10 codes a second clash in a row never happens in practice.
    for (let i = 0; i < 5; i++) {
      const userCode = Array.from({ length: 8 }, () => USER_CODE_LETTERS[randomInt(20)]).join("");
      const deviceCode = randomToken(32); // 256 random bits
      const keep = this.deps.ttl + KEEP_AFTER_EXPIRY;
      const saved = await this.deps.store.deviceCodes.create(
        this.hash("device-code", deviceCode),
        this.hash("user-code", userCode),
        record,
        POLL_INTERVAL,
        keep,
      );
      if (saved) return { deviceCode, userCode, expiresIn: this.deps.ttl, interval: POLL_INTERVAL, record };
    }
    throw new Error("no free user code after 5 draws");
  }

  /**
   * The pending request a typed user code names, or null. Guessing is limited as passwords are
   * (docs/http-api.md#device-authorization): a code that names nothing counts against the address
   * and against every address together; 429 once either is used up, before anything is looked up.
   */
  async find(typed: unknown, address: string): Promise<DeviceCodeRecord | null> {
    const checks = await Promise.all([this.perAddress.check(address), this.overall.check("all")]);
    refuseWhenLimited(checks);
    const code = normalizeUserCode(typed);
    const found = code === null ? null : await this.deps.store.deviceCodes.pending(this.hash("user-code", code));
    if (found) return found.record;
    refuseWhenLimited(await Promise.all([this.perAddress.consume(address), this.overall.consume("all")]));
    return null;
  }

  /** Approves (an approval) or denies (null) the request; false when it is no longer pending. */
  decide(userCode: string, approval: DeviceApproval | null): Promise<boolean> {
    const code = normalizeUserCode(userCode);
    if (code === null) return Promise.resolve(false);
    return this.deps.store.deviceCodes.decide(this.hash("user-code", code), approval);
  }

  /**
   * One poll of the device (RFC 8628 §3.4/3.5): the tokens once approved, the RFC's errors
   * before, invalid_grant for a code unknown, another client's or already used.
   */
  async poll(deviceCode: string, clientId: string): Promise<Issued> {
    if (deviceCode.length > 512) throw invalidGrant("err.deviceCodeUnknown");
    const p = await this.deps.store.deviceCodes.poll(this.hash("device-code", deviceCode), clientId, Date.now());
    switch (p.kind) {
      case "pending":
        throw new SigilError(400, "authorization_pending", "err.devicePending", {});
      case "slow_down":
        throw new SigilError(400, "slow_down", "err.deviceSlowDown", { seconds: p.interval });
      case "denied":
        throw new SigilError(400, "access_denied", "err.deviceDenied", {});
      case "expired":
        throw new SigilError(400, "expired_token", "err.deviceExpired", {});
      case "unknown":
      case "taken":
        throw invalidGrant("err.deviceCodeUnknown");
    }
    const { record, approval } = p;
    const code = await this.oauth.issueCode({
      clientId: record.clientId,
      redirectUri: DEVICE_GRANT,
      redirectUriGiven: false,
      userId: approval.userId,
      scope: record.scope,
      authTime: record.scope ? approval.authTime : undefined,
      amr: record.scope ? approval.amr : undefined,
      sid: record.scope ? approval.sid : undefined,
    });
    // The consent was withdrawn between the approval and this poll: the device gets nothing.
    if (code === null) throw new SigilError(400, "access_denied", "err.deviceDenied", {});
    return this.oauth.redeem({ code, clientId, redirectUri: undefined, codeVerifier: undefined });
  }
}

function refuseWhenLimited(results: Array<{ allowed: boolean; retryAfterMs?: number }>): void {
  if (results.every((r) => r.allowed)) return;
  const waits = results.map((r) => (r.allowed ? 0 : (r.retryAfterMs ?? 0)));
  throw rateLimited(Math.max(...waits) / 1000, "err.deviceCodeThrottled");
}
