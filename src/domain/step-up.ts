// "Confirm it's you" (docs/http-api.md#confirming-its-you): the step-up that every action changing how
// an account is signed in to or recovered needs first. A proof — the current password, one of the
// user's passkeys, or (with two-factor on) a code from the authenticator app — is noted on the
// browser's session with its time, and is good for REAUTH_MAX_AGE seconds in that browser only.
// Failed confirmations count on the limits of the way they were made, exactly as at sign-in: a
// wrong password or a refused passkey on the failed sign-in limits (signin-limits.ts), a wrong code
// on the two-factor limits. The HTTP side keeps the proof (pages/step-up.ts); this decides it.
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/server";
import { SigilError } from "../errors.js";
import type { UserRecord } from "../store/port.js";
import { FormError, type Accounts } from "./accounts.js";
import type { Passkeys } from "./passkeys.js";
import type { TwoFactor } from "./two-factor.js";

/** How the person proved it was them: RFC 8176 values, as in amr. */
export type ProofMethod = "pwd" | "otp" | "hwk" | "swk" | "fed";

/** A proof as the session keeps it. */
export interface Proof {
  userId: string;
  /** When it was made (ms since the epoch). */
  at: number;
  method: ProofMethod;
}

/** 401 reauth_required: the JSON endpoints' answer to a request without a fresh proof. */
export const reauthRequired = () => new SigilError(401, "reauth_required", "err.reauthRequired", {});

export class StepUp {
  private readonly now: () => number;

  constructor(
    private readonly deps: {
      accounts: Accounts;
      twoFactor: TwoFactor;
      passkeys: Passkeys;
      /** REAUTH_MAX_AGE: seconds a proof lasts. */
      maxAgeSeconds: number;
      now?: () => number;
    },
  ) {
    this.now = deps.now ?? Date.now;
  }

  get maxAgeSeconds(): number {
    return this.deps.maxAgeSeconds;
  }

  /**
   * Whether `proof` (what a session holds, any shape) is this user's and younger than
   * REAUTH_MAX_AGE. A proof from the future (a clock moved back) counts only within the same age.
   */
  isFresh(proof: unknown, userId: string): boolean {
    if (!proof || typeof proof !== "object") return false;
    const p = proof as Partial<Proof>;
    if (p.userId !== userId || typeof p.at !== "number" || !Number.isFinite(p.at)) return false;
    return Math.abs(this.now() - p.at) < this.deps.maxAgeSeconds * 1000;
  }

  private proof(user: UserRecord, method: ProofMethod): Proof {
    return { userId: user.id, at: this.now(), method };
  }

  /**
   * A sign-in just made again at an upstream provider, through an identity linked to this user
   * (pages/upstream.ts checks the link): the way in of an account without a password.
   */
  withUpstream(user: UserRecord): Proof {
    return this.proof(user, "fed");
  }

  /** The current password: limited and counted as a password sign-in; FormError 401 when wrong, 429 when limited. */
  async withPassword(user: UserRecord, password: string, address: string): Promise<Proof> {
    await this.deps.accounts.confirmPassword(user, password, address);
    return this.proof(user, "pwd");
  }

  /**
   * A current code of the authenticator app (not a recovery code: those are kept for a lost
   * phone), with two-factor on: limited and counted as the second sign-in step.
   */
  async withCode(user: UserRecord, code: string, address: string): Promise<Proof> {
    if (!(await this.deps.twoFactor.isOn(user.id))) throw new FormError("err.twofaOff");
    await this.deps.twoFactor.verify(user.id, code, address, { totpOnly: true });
    return this.proof(user, "otp");
  }

  /** Begins a passkey confirmation: request options for this user's passkeys only. */
  passkeyOptions(user: UserRecord): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return this.deps.passkeys.reauthOptions(user);
  }

  /** One of the user's passkeys answered the challenge of passkeyOptions: limited and counted as a passkey sign-in. */
  async withPasskey(user: UserRecord, response: AuthenticationResponseJSON, address: string): Promise<Proof> {
    const amr = await this.deps.passkeys.confirmReauth(user, response, address);
    return this.proof(user, amr[0] === "swk" ? "swk" : "hwk");
  }
}
