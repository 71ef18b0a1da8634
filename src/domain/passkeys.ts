// Passkeys (WebAuthn, docs/http-api.md#passkeys) with @simplewebauthn/server: registration on
// /account, sign-in on /signin. The relying party is AUTH_URL: its host is the RP id and its origin
// the expected origin; passkeys are offered only when that host is a name (localhost, or any name
// over https), never an IP address. Each ceremony's challenge is kept in the store for 5 minutes
// and taken once (atomically), so any node finishes what another began and a response is good once.
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransportFuture,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { SigilError, invalidRequest, notFound, rateLimited } from "../errors.js";
import { isDisabled, type AttemptLimiter, type PasskeyRecord, type Store, type UserRecord } from "../store/port.js";
import { FormError, accountDisabled } from "./accounts.js";
import { keyedHash } from "./secrets.js";
import {
  amrOf,
  boundKey,
  cannotVerify,
  challengeOf,
  checkPasskeyName,
  passkeysForExport,
  relyingParty,
  unknownPasskey,
  viewOf,
  webauthnLibrary,
  type PasskeyView,
  type RelyingParty,
} from "./webauthn.js";
import type { SignInLimits } from "./signin-limits.js";
import { LIMITS } from "./limits.js";
import type { ChangeOrigin, SecurityMails } from "./security-mails.js";

/** How long a ceremony may take (seconds): the challenge's life in the store. */
export const CHALLENGE_TTL = 300;
const TIMEOUT_MS = CHALLENGE_TTL * 1000;
const MAX_PASSKEYS = 20;

/**
 * What a challenge was made for: adding a passkey, signing in, confirming the deletion of one
 * user's account, or confirming it's you (step-up). An answer is good only for the ceremony (and
 * the user) its challenge names. The user is named by a keyed hash of their id (Passkeys.userTag),
 * so that a challenge left behind by a deleted account names nobody.
 */
type Ceremony =
  | { kind: "register"; user: string }
  | { kind: "signin" }
  | { kind: "delete"; user: string }
  | { kind: "reauth"; user: string };

export class Passkeys {
  readonly rp: RelyingParty | null;
  /** Sign-in ceremonies begun per address: each keeps a challenge in the store for 5 minutes. */
  private readonly ceremonies: AttemptLimiter;

  constructor(
    private readonly deps: {
      store: Store;
      authUrl: string;
      serviceName: string;
      /** The failed sign-in limits of password sign-in (Accounts.limits): one set of counters. */
      limits: SignInLimits;
      /** SECRET: the key of the user tags in stored challenges. */
      secret: string;
      /** A passkey added or removed is told to the confirmed address. */
      securityMails: SecurityMails;
    },
  ) {
    this.rp = relyingParty(deps.authUrl);
    this.ceremonies = deps.store.limiter(LIMITS.passkeyCeremonies);
  }

  /** How a stored challenge names its user: a keyed hash of the id, never the id. */
  private userTag(userId: string): string {
    return keyedHash(this.deps.secret, "sigil passkey ceremony user", userId);
  }

  get enabled(): boolean {
    return this.rp !== null;
  }

  private requireRp(): RelyingParty {
    if (!this.rp) throw notFound("err.passkeysOff");
    return this.rp;
  }

  /**
   * Takes the challenge a response answers, once. A sign-in challenge is stored under its browser
   * binding too (boundKey), so an answer brought by another browser finds nothing — the same
   * refusal as an unknown challenge — and leaves the asking browser's challenge in place.
   */
  private async take(
    response: { response?: { clientDataJSON?: unknown } },
    browser?: string,
  ): Promise<{ challenge: string; ceremony: Ceremony }> {
    const challenge = challengeOf(response);
    const raw = await this.deps.store.passkeys.takeChallenge(
      browser === undefined ? challenge : boundKey(challenge, browser),
    );
    if (raw === null) throw invalidRequest("err.passkeyRequestGone");
    return { challenge, ceremony: JSON.parse(raw) as Ceremony };
  }

  async registrationOptions(user: UserRecord): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const rp = this.requireRp();
    const existing = await this.deps.store.passkeys.listForUser(user.id);
    if (existing.length >= MAX_PASSKEYS) throw invalidRequest("err.passkeyLimit", { max: MAX_PASSKEYS });
    const { generateRegistrationOptions } = await webauthnLibrary();
    const options = await generateRegistrationOptions({
      rpName: this.deps.serviceName,
      rpID: rp.id,
      userName: user.username,
      userDisplayName: user.displayName,
      userID: new TextEncoder().encode(user.id),
      attestationType: "none",
      timeout: TIMEOUT_MS,
      excludeCredentials: existing.map((p) => ({
        id: p.id,
        transports: p.transports as AuthenticatorTransportFuture[],
      })),
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
    });
    const state: Ceremony = { kind: "register", user: this.userTag(user.id) };
    await this.deps.store.passkeys.saveChallenge(options.challenge, JSON.stringify(state), CHALLENGE_TTL);
    return options;
  }

  async register(
    user: UserRecord,
    response: RegistrationResponseJSON,
    rawName: string,
    origin: ChangeOrigin,
  ): Promise<PasskeyView> {
    const rp = this.requireRp();
    const name = checkPasskeyName(rawName);
    const { challenge, ceremony } = await this.take(response);
    if (ceremony.kind !== "register" || ceremony.user !== this.userTag(user.id)) throw cannotVerify();
    let info;
    try {
      const { verifyRegistrationResponse } = await webauthnLibrary();
      const v = await verifyRegistrationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
      });
      if (!v.verified) throw cannotVerify();
      info = v.registrationInfo;
    } catch {
      throw cannotVerify();
    }
    const record: PasskeyRecord = {
      id: info.credential.id,
      userId: user.id,
      name,
      publicKey: Buffer.from(info.credential.publicKey).toString("base64url"),
      counter: info.credential.counter,
      ...(info.credential.transports ? { transports: info.credential.transports } : {}),
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
      aaguid: info.aaguid,
      createdAt: Date.now(),
    };
    if (!(await this.deps.store.passkeys.add(record))) throw invalidRequest("err.passkeyDuplicate");
    this.deps.securityMails.notify(user.id, { kind: "passkeyAdded", name }, origin);
    return viewOf(record);
  }

  /**
   * Begins a passkey sign-in from `address`, bound to `browser`: the random value of the asking
   * browser's cookie (http/pages/passkey-browser.ts). Only an answer brought with that value is
   * taken (authenticate).
   */
  async authenticationOptions(address: string, browser: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const rp = this.requireRp();
    const limit = await this.ceremonies.consume(address);
    if (!limit.allowed) throw rateLimited(limit.retryAfterMs / 1000, "err.passkeySigninThrottled");
    // No allowCredentials: discoverable credentials, the authenticator says who the user is.
    const { generateAuthenticationOptions } = await webauthnLibrary();
    const options = await generateAuthenticationOptions({
      rpID: rp.id,
      userVerification: "required",
      timeout: TIMEOUT_MS,
    });
    const state: Ceremony = { kind: "signin" };
    await this.deps.store.passkeys.saveChallenge(
      boundKey(options.challenge, browser),
      JSON.stringify(state),
      CHALLENGE_TTL,
    );
    return options;
  }

  /**
   * Verifies a sign-in from `address`; the user and the sign-in's amr. Limited like a password
   * sign-in, on the same counters (signin-limits.ts): a refused answer — an unknown passkey, a bad
   * signature, user verification missing, a counter that did not grow, a user handle that is not
   * the owner's, a challenge that is unknown, expired, used or made for another ceremony — counts
   * as a failed sign-in from this address, and for the passkey's owner from this address when the
   * passkey is known (as a wrong password for that username would); the one that goes past a limit
   * is answered 429. While a limit is used up every answer is refused with 429 before it is looked
   * at, a right one too. A right answer counts nothing and, having passed the check, signs in:
   * unlike a password, a passkey's answer cannot be guessed, so there is nothing for answers sent
   * at once to learn that a second check after it (as passwords have) would hide.
   */
  async authenticate(
    response: AuthenticationResponseJSON,
    address: string,
    browser: string,
  ): Promise<{ user: UserRecord; amr: string[] }> {
    const rp = this.requireRp();
    // Whose limit this is: the owner of the passkey the answer names, when there is one.
    const passkey = typeof response.id === "string" ? await this.deps.store.passkeys.byId(response.id) : null;
    const owner = passkey ? await this.deps.store.accounts.byId(passkey.userId) : null;
    const username = owner?.username ?? null;
    await this.deps.limits.check(username, address);
    try {
      // Another browser's answer (or one without the cookie) is an unknown challenge: refused, counted.
      const { challenge, ceremony } = await this.take(response, browser);
      if (ceremony.kind !== "signin") throw cannotVerify();
      if (!passkey || !owner) throw unknownPasskey();
      const updated = await this.verifyAssertion(rp, challenge, passkey, response);
      // A disabled account signs in by no way (told only to whoever holds the passkey; not counted).
      if (isDisabled(owner)) throw accountDisabled();
      return { user: owner, amr: amrOf(updated) };
    } catch (err) {
      // A refused answer (400) counts, or is 429 when it goes past a limit; a store outage does not.
      if (err instanceof SigilError && err.status === 400) await this.deps.limits.fail(username, address);
      throw err;
    }
  }

  /**
   * Begins confirming the deletion of the signed-in user's account with one of their passkeys: the
   * request options name only that user's passkeys, and the challenge is bound to the user and to
   * "delete" (5 minutes, once). A 400 when the user has no passkey.
   */
  deletionOptions(user: UserRecord): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return this.ownOptions(user, "delete");
  }

  /**
   * Verifies that the signed-in user confirmed deleting their account with one of their own
   * passkeys, answering a challenge made for exactly that (deletionOptions). Throws otherwise: a
   * sign-in's challenge, another user's challenge or passkey, a used or expired challenge.
   */
  async confirmDeletion(user: UserRecord, response: AuthenticationResponseJSON): Promise<void> {
    const rp = this.requireRp();
    const { challenge, ceremony } = await this.take(response);
    if (ceremony.kind !== "delete" || ceremony.user !== this.userTag(user.id) || typeof response.id !== "string")
      throw cannotVerify();
    const passkey = await this.deps.store.passkeys.byId(response.id);
    if (!passkey || passkey.userId !== user.id) throw cannotVerify();
    await this.verifyAssertion(rp, challenge, passkey, response);
  }

  /** Begins a "Confirm it's you" with a passkey (domain/step-up.ts): as deletionOptions, bound to "reauth". */
  reauthOptions(user: UserRecord): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return this.ownOptions(user, "reauth");
  }

  /**
   * Verifies a "Confirm it's you" answer: one of the user's own passkeys, for a reauth challenge
   * of this user; its amr. Limited and counted like a passkey sign-in from `address` (a refused
   * answer is a failed sign-in for this user from there; 429 past a limit, and while one is used up).
   */
  async confirmReauth(user: UserRecord, response: AuthenticationResponseJSON, address: string): Promise<string[]> {
    const rp = this.requireRp();
    await this.deps.limits.check(user.username, address);
    try {
      const { challenge, ceremony } = await this.take(response);
      if (ceremony.kind !== "reauth" || ceremony.user !== this.userTag(user.id) || typeof response.id !== "string")
        throw cannotVerify();
      const passkey = await this.deps.store.passkeys.byId(response.id);
      if (!passkey || passkey.userId !== user.id) throw cannotVerify();
      return amrOf(await this.verifyAssertion(rp, challenge, passkey, response));
    } catch (err) {
      if (err instanceof SigilError && err.status === 400) await this.deps.limits.fail(user.username, address);
      throw err;
    }
  }

  /** Request options naming only the user's passkeys, the challenge bound to the user and `kind`. */
  private async ownOptions(
    user: UserRecord,
    kind: "delete" | "reauth",
  ): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const rp = this.requireRp();
    const limit = await this.ceremonies.consume(`${kind}:${user.id}`);
    if (!limit.allowed) throw rateLimited(limit.retryAfterMs / 1000, "err.passkeyConfirmThrottled");
    const mine = await this.deps.store.passkeys.listForUser(user.id);
    if (mine.length === 0) throw invalidRequest("err.noPasskey");
    const { generateAuthenticationOptions } = await webauthnLibrary();
    const options = await generateAuthenticationOptions({
      rpID: rp.id,
      userVerification: "required",
      timeout: TIMEOUT_MS,
      allowCredentials: mine.map((p) => ({ id: p.id, transports: p.transports as AuthenticatorTransportFuture[] })),
    });
    const state: Ceremony = { kind, user: this.userTag(user.id) };
    await this.deps.store.passkeys.saveChallenge(options.challenge, JSON.stringify(state), CHALLENGE_TTL);
    return options;
  }

  /** Checks an assertion against a stored passkey and saves its new counter; the updated record. */
  private async verifyAssertion(
    rp: RelyingParty,
    challenge: string,
    passkey: PasskeyRecord,
    response: AuthenticationResponseJSON,
  ): Promise<PasskeyRecord> {
    // The authenticator's user handle must name the passkey's owner.
    const handle = response.response?.userHandle;
    if (typeof handle === "string" && Buffer.from(handle, "base64url").toString("utf8") !== passkey.userId)
      throw cannotVerify();
    let info;
    try {
      const { verifyAuthenticationResponse } = await webauthnLibrary();
      const v = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
        credential: {
          id: passkey.id,
          publicKey: Buffer.from(passkey.publicKey, "base64url"),
          counter: passkey.counter,
          ...(passkey.transports ? { transports: passkey.transports as AuthenticatorTransportFuture[] } : {}),
        },
      });
      if (!v.verified) throw cannotVerify();
      info = v.authenticationInfo;
    } catch (err) {
      // The library refuses a counter that did not grow (a cloned authenticator, per WebAuthn §6.1.1).
      if (err instanceof SigilError) throw err;
      throw cannotVerify();
    }
    // One atomic change: a rename, or another sign-in, meanwhile stays (the counter never goes back).
    const lastUsedAt = Date.now();
    const updated = await this.deps.store.passkeys.update(passkey.userId, passkey.id, (p) => ({
      ...p,
      counter: Math.max(p.counter, info.newCounter),
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
      lastUsedAt,
    }));
    if (!updated) throw unknownPasskey();
    return updated;
  }

  async list(userId: string): Promise<PasskeyView[]> {
    return (await this.deps.store.passkeys.listForUser(userId)).map(viewOf);
  }

  async rename(userId: string, id: string, rawName: string): Promise<void> {
    const name = checkPasskeyName(rawName);
    if (!(await this.deps.store.passkeys.update(userId, id, (p) => ({ ...p, name }))))
      throw notFound("err.passkeyUnknown");
  }

  /**
   * Removes one of the user's passkeys (of removals at once, one succeeds and is mailed about),
   * unless it is an account's last way in (no password, no other passkey, no upstream link): 409,
   * nothing changed; checked and removed in one step, as an upstream link's unlink.
   */
  async remove(userId: string, id: string, origin: ChangeOrigin): Promise<void> {
    const passkey = await this.deps.store.passkeys.byId(id);
    if (passkey?.userId !== userId) throw notFound("err.passkeyUnknown");
    const user = await this.deps.store.accounts.byId(userId);
    const done =
      user && user.passwordHash !== ""
        ? (await this.deps.store.passkeys.remove(userId, id)) && "removed"
        : await this.deps.store.passkeys.removeUnlessLast(userId, id);
    if (done === "last") throw new FormError("err.passkeyLastWay", 409);
    if (done !== "removed") throw notFound("err.passkeyUnknown");
    this.deps.securityMails.notify(userId, { kind: "passkeyRemoved", name: passkey.name }, origin);
  }

  /**
   * What the account's export lists of the user's passkeys (docs/http-api.md#passkeys): names,
   * dates and kinds, never the public key or counter. Pairs with removeForUser (deletion).
   */
  exportFor(userId: string): Promise<Array<Record<string, unknown>>> {
    return passkeysForExport(this.deps.store, userId);
  }

  /** Account deletion: every passkey of the user. */
  removeForUser(userId: string): Promise<number> {
    return this.deps.store.passkeys.removeForUser(userId);
  }
}
