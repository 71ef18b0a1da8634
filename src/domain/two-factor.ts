// Two-factor with an authenticator app (docs/http-api.md#two-factor): TOTP (RFC 6238: 6 digits,
// 30 s, SHA-1, what every authenticator app reads from an otpauth:// QR code) through otpauth, and
// ten single-use recovery codes. The secret is stored sealed under SECRET (seal.ts); recovery codes
// only as keyed hashes. Each TOTP time step signs in once; codes are limited like passwords.
import { randomInt } from "node:crypto";
import * as OTPAuth from "otpauth";
import { rateLimited } from "../errors.js";
import type { AttemptLimiter, LimitResult, Store, TwoFactorRecord } from "../store/port.js";
import { FormError } from "./accounts.js";
import { seal, sealingKey, unseal } from "./seal.js";
import { keyedHash } from "./secrets.js";
import type { BrowserOrigin, SecurityMails } from "./security-mails.js";
import { LIMITS } from "./limits.js";

const PERIOD = 30;
const DIGITS = 6;
/** Codes of the previous and next step are accepted too (clock drift). */
const WINDOW = 1;
/** A used step is remembered past the last moment it could be accepted. */
const STEP_MARK_SECONDS = PERIOD * (2 * WINDOW + 2);
/** How long the setup form (QR code and first code) stays valid. */
const SETUP_SECONDS = 15 * 60;
export const RECOVERY_CODES = 10;
/** Recovery code letters: no 0/o, 1/l/i to misread. */
const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

export interface TwoFactorSetup {
  /** Base32, to type into an app (grouped by 4 for reading on the page). */
  secret: string;
  /** otpauth:// URI for the QR code. */
  uri: string;
  /** The pending setup, sealed for this user: the form carries it back with the first code. */
  pending: string;
  /** The enabledAt of the two-factor this set-up replaces, or null for a first set-up. */
  replaces: number | null;
}

/** What a pending value holds (sealed): the secret, until when, and what it replaces (older ones: none). */
interface PendingSetup {
  s: string;
  until: number;
  replaces?: number | null;
}

const digitsOnly = (s: string) => s.replace(/[\s-]/g, "");

function totpFor(secretBase32: string, label = "", issuer = "") {
  return new OTPAuth.TOTP({
    issuer,
    label,
    algorithm: "SHA1",
    digits: DIGITS,
    period: PERIOD,
    secret: OTPAuth.Secret.fromBase32(secretBase32),
  });
}

function newRecoveryCode(): string {
  let s = "";
  for (let i = 0; i < 10; i++) s += RECOVERY_ALPHABET.charAt(randomInt(RECOVERY_ALPHABET.length));
  return `${s.slice(0, 5)}-${s.slice(5)}`;
}

export class TwoFactor {
  private readonly key: Buffer;
  private readonly perUser: AttemptLimiter;
  private readonly perAddress: AttemptLimiter;
  private readonly now: () => number;

  constructor(
    private readonly deps: {
      store: Store;
      secret: string;
      issuer: string;
      now?: () => number;
      /** Told when a user's key cannot be opened with this SECRET (a 409 to them); logs it for the operator. */
      onUnreadable?: (userId: string) => void;
      /** Two-factor turned on, replaced or off is told to the confirmed address. */
      securityMails: SecurityMails;
    },
  ) {
    this.key = sealingKey(deps.secret, "sigil totp secret seal v1");
    this.perUser = deps.store.limiter(LIMITS.twoFactorPerUser);
    this.perAddress = deps.store.limiter(LIMITS.twoFactorPerAddress);
    this.now = deps.now ?? Date.now;
  }

  private recoveryHash(userId: string, code: string): string {
    return keyedHash(this.deps.secret, "sigil recovery code", userId, code);
  }

  async isOn(userId: string): Promise<boolean> {
    return (await this.deps.store.twoFactor.get(userId)) !== null;
  }

  /**
   * The user's key, opened; a FormError (409) when this SECRET cannot open it (SECRET changed since
   * it was set up). Their recovery codes, keyed hashes under SECRET, no longer match either: only
   * the operator's reset (`sigil users reset-2fa`) lets them sign in with a password again.
   */
  private openKey(userId: string, rec: TwoFactorRecord): string {
    const secret = unseal(this.key, rec.sealedSecret, `totp ${userId}`);
    if (secret !== null) return secret;
    this.deps.onUnreadable?.(userId);
    throw new FormError("err.twofaUnreadable", 409);
  }

  /** Before asking for a code: a FormError (409) when the user's two-factor cannot be checked any more (openKey). */
  async checkUsable(userId: string): Promise<void> {
    const rec = await this.deps.store.twoFactor.get(userId);
    if (rec) this.openKey(userId, rec);
  }

  /** What /account shows: on or off, and how many recovery codes are left. */
  async status(userId: string): Promise<{ on: boolean; recoveryCodesLeft: number }> {
    const on = await this.isOn(userId);
    return { on, recoveryCodesLeft: on ? await this.deps.store.twoFactor.recoveryCodesLeft(userId) : 0 };
  }

  /**
   * A new secret to set up, not stored: the pending value carries it (sealed) to confirm(), with
   * the two-factor it is to replace (the enabledAt of the one on now, or none): one secret at a
   * time, so a set-up confirms only while that is still so (confirm: 409 otherwise).
   */
  async newSetup(userId: string, username: string): Promise<TwoFactorSetup> {
    const current = await this.deps.store.twoFactor.get(userId);
    const secret = new OTPAuth.Secret({ size: 20 }).base32;
    const uri = totpFor(secret, username, this.deps.issuer).toString();
    const until = this.now() + SETUP_SECONDS * 1000;
    const replaces = current ? current.enabledAt : null;
    const state: PendingSetup = { s: secret, until, replaces };
    return { secret, uri, pending: seal(this.key, JSON.stringify(state), `setup ${userId}`), replaces };
  }

  /** The setup in a pending value (for showing the page again after a wrong code); FormError when expired. */
  reopenSetup(userId: string, username: string, pending: string): TwoFactorSetup {
    const opened = unseal(this.key, pending, `setup ${userId}`);
    const p = opened ? (JSON.parse(opened) as PendingSetup) : null;
    if (!p || p.until < this.now()) throw new FormError("err.setupExpired");
    const replaces: number | null = typeof p.replaces === "number" ? p.replaces : null;
    return { secret: p.s, uri: totpFor(p.s, username, this.deps.issuer).toString(), pending, replaces };
  }

  /**
   * Turns two-factor on (or replaces it) when the code matches the pending setup's secret: the
   * recovery codes, in clear, for showing once. FormError when the code is wrong or the setup
   * expired; 409, and nothing changes, when two-factor is no longer as it was when the set-up began
   * (a first set-up while it is on; a replacement of a secret that was replaced or turned off).
   */
  async confirm(
    userId: string,
    username: string,
    pending: string,
    code: string,
    origin: BrowserOrigin,
  ): Promise<string[]> {
    const address = origin.address;
    const setup = this.reopenSetup(userId, username, pending);
    await this.expectState(userId, setup.replaces);
    await this.guarded(userId, address, async () => {
      const step = this.matchingStep(setup.secret, code);
      return step !== null && (await this.deps.store.twoFactor.useStep(userId, step, STEP_MARK_SECONDS));
    });
    const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    // Atomic in the store: of set-ups confirmed at once, one wins and the others change nothing.
    const done = await this.deps.store.twoFactor.enable(
      userId,
      { sealedSecret: seal(this.key, setup.secret, `totp ${userId}`), enabledAt: this.enabledAtAfter(setup.replaces) },
      codes.map((c) => this.recoveryHash(userId, c.replace("-", ""))),
      { replaces: setup.replaces },
    );
    if (!done) throw this.stateError(setup.replaces);
    this.deps.securityMails.notify(
      userId,
      { kind: setup.replaces !== null ? "twoFactorReplaced" : "twoFactorOn" },
      origin,
    );
    return codes;
  }

  /** 409 unless the user's two-factor is still what the set-up began with (off, or that enabledAt). */
  private async expectState(userId: string, replaces: number | null): Promise<void> {
    const current = await this.deps.store.twoFactor.get(userId);
    if ((current?.enabledAt ?? null) !== replaces) throw this.stateError(replaces);
  }

  private stateError(replaces: number | null): FormError {
    return new FormError(replaces === null ? "err.twofaAlreadyOn" : "err.twofaChanged", 409);
  }

  /** A new enabledAt, never the one replaced (it names the secret a set-up expects). */
  private enabledAtAfter(replaces: number | null): number {
    const now = this.now();
    return replaces !== null && now <= replaces ? replaces + 1 : now;
  }

  /**
   * The second step of a sign-in (and turning two-factor off): a TOTP code not used before, or an
   * unused recovery code. "otp" or "recovery"; FormError (401) when wrong; 429 when limited.
   * Limited like passwords (Accounts.signIn): checked first, only failures count, per user and per
   * address; a wrong code past the limit is answered 429.
   */
  async verify(
    userId: string,
    code: string,
    address: string,
    opts: { totpOnly?: boolean } = {},
  ): Promise<"otp" | "recovery"> {
    let used: "otp" | "recovery" = "otp";
    await this.guarded(userId, address, async () => {
      const rec = await this.deps.store.twoFactor.get(userId);
      if (!rec) return false;
      const secret = this.openKey(userId, rec);
      const c = digitsOnly(code.slice(0, 64)).toLowerCase();
      if (/^\d{6}$/.test(c)) {
        const step = this.matchingStep(secret, c);
        return step !== null && (await this.deps.store.twoFactor.useStep(userId, step, STEP_MARK_SECONDS));
      }
      used = "recovery";
      return (
        !opts.totpOnly &&
        /^[a-z0-9]{10}$/.test(c) &&
        (await this.deps.store.twoFactor.useRecoveryCode(userId, this.recoveryHash(userId, c)))
      );
    });
    return used;
  }

  /**
   * New recovery codes (after "Confirm it's you"): the old ones stop working at once; the new
   * ones, in clear, for showing once; the confirmed address is told. 409 when two-factor is off.
   */
  async newRecoveryCodes(userId: string, origin: BrowserOrigin): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    const hashes = codes.map((c) => this.recoveryHash(userId, c.replace("-", "")));
    if (!(await this.deps.store.twoFactor.replaceRecoveryCodes(userId, hashes)))
      throw new FormError("err.twofaIsOff", 409);
    this.deps.securityMails.notify(userId, { kind: "recoveryCodes" }, origin);
    return codes;
  }

  /** Turns two-factor off after a current code (or a recovery code). */
  async disable(userId: string, code: string, origin: BrowserOrigin): Promise<void> {
    await this.verify(userId, code, origin.address);
    if (await this.deps.store.twoFactor.disable(userId))
      this.deps.securityMails.notify(userId, { kind: "twoFactorOff" }, origin);
  }

  /** Turns two-factor off without a code (the operator's `users reset-2fa`); true when it was on. */
  async reset(userId: string): Promise<boolean> {
    const wasOn = await this.deps.store.twoFactor.disable(userId);
    if (wasOn) this.deps.securityMails.notify(userId, { kind: "twoFactorOff" }, "operator");
    return wasOn;
  }

  /** The time step a code matches (within WINDOW of now), or null. */
  private matchingStep(secret: string, code: string): number | null {
    const c = digitsOnly(code.slice(0, 64));
    if (!/^\d{6}$/.test(c)) return null;
    const now = this.now();
    const delta = totpFor(secret).validate({ token: c, window: WINDOW, timestamp: now });
    return delta === null ? null : Math.floor(now / 1000 / PERIOD) + delta;
  }

  private async guarded(userId: string, address: string, attempt: () => Promise<boolean>): Promise<void> {
    const limited = (results: LimitResult[]) => {
      if (results.every((r) => r.allowed)) return;
      const waits = results.map((r) => (r.allowed ? 0 : r.retryAfterMs));
      throw rateLimited(Math.max(...waits) / 1000, "err.codeThrottled");
    };
    // The per-user counter is keyed by a keyed hash of the user id: like the sign-in throttle's, it
    // names no user and ends within its window (it outlives an account's deletion by at most that).
    const user = keyedHash(this.deps.secret, "sigil 2fa limit", userId).slice(0, 32);
    const check = async () => limited(await Promise.all([this.perUser.check(user), this.perAddress.check(address)]));
    await check();
    if (!(await attempt())) {
      limited(await Promise.all([this.perUser.consume(user), this.perAddress.consume(address)]));
      throw new FormError("err.wrongCode", 401);
    }
    await check();
  }
}
