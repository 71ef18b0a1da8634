// ---- OpenID Connect (docs/http-api.md#openid-connect): the ID token signing keys, shared by every
// node, and the scopes a user consented to per app.

/** One signing key. The private part is sealed (encrypted under SECRET) by the domain. */
/** The JWS algorithms ID tokens can be signed with (ID_TOKEN_SIGNING_ALG). */
export type SigningAlg = "RS256" | "ES256" | "EdDSA";

export interface SigningKeyRecord {
  /** Key id: the JWS `kid` header and the JWKS entry. */
  kid: string;
  alg: SigningAlg;
  /** The public JWK: kty and its members (RSA: n, e; EC: crv, x, y; OKP: crv, x). */
  publicJwk: Record<string, string>;
  /** The private key as the domain sealed it (AES-256-GCM under a key derived from SECRET). */
  sealedPrivateKey: string;
  /** When it was made and when nodes start signing with it (ms since the epoch). */
  createdAt: number;
  activatesAt: number;
}

export interface SigningKeyStore {
  /** Every key, in no particular order. */
  list(): Promise<SigningKeyRecord[]>;
  /**
   * Adds the key only when the store holds no key at all (the first node to start makes one):
   * atomic, so any number of nodes starting at once leave exactly one. false when one was there.
   */
  addFirst(key: SigningKeyRecord): Promise<boolean>;
  /**
   * Claims the making of the first key for ttlSeconds (one node makes it while the others wait
   * for it, instead of every starting node generating an RSA key to throw away); true for one
   * caller per period. addFirst alone keeps the outcome right should the claimer die.
   */
  claimFirst(ttlSeconds: number): Promise<boolean>;
  /** Adds a key (a rotation). */
  add(key: SigningKeyRecord): Promise<void>;
  /**
   * Adds the key only while the store holds exactly the keys named by kids (in any order), as the
   * caller read them: atomic, so of any number of nodes replacing the same keys at once, one adds
   * its key and the others get false (and read again).
   */
  addUnchanged(key: SigningKeyRecord, kids: string[]): Promise<boolean>;
  /** Removes keys (retired ones whose tokens have all expired). */
  remove(kids: string[]): Promise<void>;
}

export interface ConsentScopeStore {
  /** The scopes the user granted the app, or null when none were recorded (a consent from before OpenID Connect). */
  get(userId: string, clientId: string): Promise<string[] | null>;
  /** Records the scopes; false (nothing kept) when the app does not exist (GrantStore.forgetApp). */
  set(userId: string, clientId: string, scopes: string[]): Promise<boolean>;
  /** Forgets every app's scopes for the user (account deletion). */
  clear(userId: string): Promise<void>;
}
