// ---- Passkeys (WebAuthn, docs/http-api.md#passkeys): a user's credentials, and the single-use
// challenges of the ceremonies (any node may finish what another began).

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

export interface PasskeyStore {
  /** Saves a new passkey; false (nothing saved) when that credential id is known already. */
  add(passkey: PasskeyRecord): Promise<boolean>;
  /** The user's passkeys, oldest first. */
  listForUser(userId: string): Promise<PasskeyRecord[]>;
  byId(credentialId: string): Promise<PasskeyRecord | null>;
  /** Replaces a passkey of its user (name, counter, last use); false (nothing saved) when it is gone. */
  update(passkey: PasskeyRecord): Promise<boolean>;
  /** Removes one of the user's passkeys; false when the user has no such passkey. */
  remove(userId: string, credentialId: string): Promise<boolean>;
  /** Removes every passkey of the user (account deletion); how many there were. */
  removeForUser(userId: string): Promise<number>;
  /** Keeps a ceremony's state (JSON) under its challenge for ttlSeconds. */
  saveChallenge(challenge: string, state: string, ttlSeconds: number): Promise<void>;
  /** Takes it for its one use: the state, or null when unknown, expired or taken already (atomic). */
  takeChallenge(challenge: string): Promise<string | null>;
}
