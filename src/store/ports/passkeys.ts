// ---- Passkeys (WebAuthn, docs/http-api.md#passkeys): a user's credentials, and the single-use
// challenges of the ceremonies (any node may finish what another began).
import type { UnlessLast } from "./upstream-links.js";

export interface PasskeyRecord {
  /** The credential id (base64url), as the authenticator made it; unique across users. */
  id: string;
  userId: string;
  /** The user's name for it ("Laptop"). */
  name: string;
  /** COSE public key, base64url. */
  publicKey: string;
  /** Signature counter (0 for most passkeys: they do not count). */
  counter: number;
  /** The authenticator's transports ("internal", "hybrid", …), passed back to the browser. */
  transports?: string[];
  /** "singleDevice" | "multiDevice" (backup eligible: a synced passkey). */
  deviceType: string;
  /** Whether it was backed up (synced) when last seen. */
  backedUp: boolean;
  /** The authenticator model (AAGUID), when it says. */
  aaguid?: string;
  /** ms since the epoch. */
  createdAt: number;
  lastUsedAt?: number;
}

/** A change of a passkey (PasskeyStore.update): the new record, or undefined for none. */
export type PasskeyChange = (passkey: PasskeyRecord) => PasskeyRecord | undefined;

/** The record change() makes of current, keeping its id and user (both stores). */
export function changedPasskey(current: PasskeyRecord, change: PasskeyChange): PasskeyRecord | undefined {
  const next = change(structuredClone(current));
  return next && { ...next, id: current.id, userId: current.userId };
}

export interface PasskeyStore {
  /** Saves a new passkey; false (nothing saved) when that credential id is known already. */
  add(passkey: PasskeyRecord): Promise<boolean>;
  /** The user's passkeys, oldest first. */
  listForUser(userId: string): Promise<PasskeyRecord[]>;
  byId(credentialId: string): Promise<PasskeyRecord | null>;
  /**
   * Changes one of the user's passkeys (name, counter, last use) in one atomic step, as
   * AccountStore.update does a user: change gets the record as stored and returns the new one, or
   * undefined to leave it; it may run more than once, so it is synchronous and does nothing else.
   * The id and user never change. The record as stored after, or null (nothing written) when the
   * user has no such passkey (never made, or removed meanwhile: a late sign-in does not revive it).
   */
  update(userId: string, credentialId: string, change: PasskeyChange): Promise<PasskeyRecord | null>;
  /** Removes one of the user's passkeys; false when the user has no such passkey. */
  remove(userId: string, credentialId: string): Promise<boolean>;
  /**
   * Removes one of the user's passkeys only while another passkey or an upstream link of theirs
   * remains, in one atomic step (UpstreamLinkStore.unlinkUnlessLast, the same count): for an
   * account without a password, whose passkey and link removed at once must not both go.
   */
  removeUnlessLast(userId: string, credentialId: string): Promise<UnlessLast>;
  /** Removes every passkey of the user (account deletion); how many there were. */
  removeForUser(userId: string): Promise<number>;
  /** Keeps a ceremony's state (JSON) under its challenge for ttlSeconds. */
  saveChallenge(challenge: string, state: string, ttlSeconds: number): Promise<void>;
  /** Takes it for its one use: the state, or null when unknown, expired or taken already (atomic). */
  takeChallenge(challenge: string): Promise<string | null>;
}
