// The ID token signing keys (docs/http-api.md#keys): RSA 2048 (RS256; ES256 on P-256 or EdDSA on
// Ed25519 by ID_TOKEN_SIGNING_ALG, for the keys a node makes), kept in the store so every
// node signs with the same ones, their private parts sealed with AES-256-GCM under a key that HKDF
// derives from SECRET. The first node to start makes one (node.ts), and any node that finds none
// when it needs one (to serve the JWKS or sign an ID token); `sigil keys rotate` publishes a new one
// at once, and nodes sign with it KEY_ACTIVATION_DELAY later (relying parties that cached the
// JWKS have fetched it by then); a superseded key stays published until every token it signed
// has expired.
//
// When SECRET changed, the stored private keys can no longer be opened: a node that finds the key
// it should sign with unopenable logs it once (the kid, never key material) and makes a new key,
// active at once, in place of it (as a rotation would, but without the delay: nothing can be
// signed meanwhile). Nodes racing to do so add one key between them (addUnchanged); the old
// public keys stay in the JWKS until the tokens they signed have expired, as after a rotation.
//
// How a rotation reaches every node: GET /jwks reads the store on every request (the JWKS shows a
// new key at once, on every node); a node keeps the keys it signs with for at most KEY_CACHE_TTL,
// and knows each key's activation time, so once it has read a pending key it switches to it on
// time without another read.
import { createPrivateKey, generateKeyPair } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { promisify } from "node:util";
import { calculateJwkThumbprint } from "jose";
import { seal, sealingKey, unsealBytes } from "./seal.js";
import type { SigningAlg, SigningKeyRecord, Store } from "../store/port.js";

const generate = promisify(generateKeyPair);

/** How a key of each algorithm is made, and the public JWK members that describe it. */
const KINDS: Record<
  SigningAlg,
  { make: () => Promise<{ privateKey: KeyObject; publicKey: KeyObject }>; members: string[] }
> = {
  RS256: { make: () => generate("rsa", { modulusLength: 2048 }), members: ["kty", "n", "e"] },
  ES256: { make: () => generate("ec", { namedCurve: "P-256" }), members: ["kty", "crv", "x", "y"] },
  EdDSA: { make: () => generate("ed25519"), members: ["kty", "crv", "x"] },
};

/** Makes a key pair of an algorithm (makeKeyPair; tests hand out pairs made ahead of time). */
export type KeyPairMaker = (alg: SigningAlg) => Promise<{ privateKey: KeyObject; publicKey: KeyObject }>;

/** A new key pair of the algorithm (an RSA 2048 pair costs some 130 ms of CPU). */
export const makeKeyPair: KeyPairMaker = (alg) => KINDS[alg].make();

/** The algorithms of ID tokens this service may have signed (a hint is verified against any). */
export const SIGNING_ALGS = Object.keys(KINDS) as SigningAlg[];

export interface SigningKeysDeps {
  store: Store;
  secret: string;
  /** Seconds from a rotation to nodes signing with the new key. */
  activationDelay: number;
  /** Seconds a node signs from the keys it read before reading them again. */
  cacheTtl: number;
  /** The longest lifetime of a token signed with a key (the ID token lifetime), seconds. */
  tokenTtl: number;
  /** The algorithm of the keys this node makes (ID_TOKEN_SIGNING_ALG); RS256 when not given. */
  alg?: SigningAlg;
  now?: () => number;
  /** How a key pair is made (makeKeyPair unless given). */
  makeKeyPair?: KeyPairMaker;
  /** Told once per key that this SECRET cannot open (before it is replaced); logs it. */
  onUnopenable?: (kid: string) => void;
}

/** A public key as the JWKS lists it: kty and its members (RSA: n, e; EC: crv, x, y; OKP: crv, x). */
export interface PublicJwk {
  kty: string;
  kid: string;
  alg: SigningAlg;
  use: "sig";
  [member: string]: string;
}

/** The key a node signs with now. */
export interface Signer {
  kid: string;
  alg: SigningAlg;
  key: KeyObject;
}

/** How long one node may take to make the first key before others make their own. */
const CLAIM_SECONDS = 10;

/** Clock skew allowed on top of a token's lifetime before its key is dropped. */
const SKEW_MS = 60_000;

export class SigningKeys {
  private readonly now: () => number;
  private readonly seal: Buffer;
  private cache: { at: number; keys: SigningKeyRecord[] } | undefined;
  private readonly opened = new Map<string, KeyObject>();
  /** Keys this SECRET cannot open, told to onUnopenable already. */
  private readonly unopenable = new Set<string>();
  /** The replacement of an unopenable key under way on this node (one at a time). */
  private replacing: Promise<void> | undefined;

  constructor(private readonly deps: SigningKeysDeps) {
    this.now = deps.now ?? Date.now;
    this.seal = sealingKey(deps.secret, "sigil signing key seal v1");
  }

  /** A new key record, its private part sealed; activatesAt and createdAt in ms. */
  private async make(activatesAt: number, createdAt = this.now()): Promise<SigningKeyRecord> {
    const alg = this.deps.alg ?? "RS256";
    const kind = KINDS[alg];
    const { privateKey, publicKey } = await (this.deps.makeKeyPair ?? makeKeyPair)(alg);
    const exported = publicKey.export({ format: "jwk" }) as Record<string, string>;
    const publicJwk = Object.fromEntries(kind.members.map((m) => [m, exported[m] ?? ""]));
    const kid = await calculateJwkThumbprint(publicJwk);
    const der = privateKey.export({ format: "der", type: "pkcs8" });
    return {
      kid,
      alg,
      publicJwk,
      sealedPrivateKey: seal(this.seal, der, kid),
      createdAt,
      activatesAt,
    };
  }

  /** The private key, or null when this SECRET cannot open it (it was sealed under another). */
  private open(rec: SigningKeyRecord): KeyObject | null {
    const known = this.opened.get(rec.kid);
    if (known) return known;
    const der = unsealBytes(this.seal, rec.sealedPrivateKey, rec.kid);
    if (!der) return null;
    const key = createPrivateKey({ key: der, format: "der", type: "pkcs8" });
    this.opened.set(rec.kid, key);
    return key;
  }

  /** Replaces the key this node should sign with but cannot open; one replacement at a time per node. */
  private replaceUnopenable(bad: SigningKeyRecord): Promise<void> {
    if (!this.unopenable.has(bad.kid)) {
      this.unopenable.add(bad.kid);
      this.deps.onUnopenable?.(bad.kid);
    }
    this.replacing ??= this.replace().finally(() => (this.replacing = undefined));
    return this.replacing;
  }

  /**
   * Adds a new key, active now, unless the keys changed since they were read (another node
   * replaced it first: when its key opens, done; else read again). Retired keys go on the way.
   */
  private async replace(): Promise<void> {
    const store = this.deps.store.signingKeys;
    for (let attempt = 0; attempt < 5; attempt++) {
      const keys = await store.list();
      const active = this.active(keys);
      if (active && this.open(active)) return;
      // Active now, and after the key it replaces should both activate within one millisecond.
      const now = this.now();
      const rec = await this.make(now, Math.max(now, (active?.createdAt ?? 0) + 1));
      if (
        await store.addUnchanged(
          rec,
          keys.map((k) => k.kid),
        )
      ) {
        const all = [...keys, rec];
        const keep = new Set(this.published(all).map((k) => k.kid));
        await store.remove(all.filter((k) => !keep.has(k.kid)).map((k) => k.kid));
        return;
      }
    }
  }

  /**
   * Makes the first key when the store has none; any number of nodes doing so at once leave one
   * (addFirst is atomic). One node claims the work and the others wait for its key, up to a few
   * seconds, before making one themselves (a claimer that died).
   */
  async ensure(): Promise<void> {
    const store = this.deps.store.signingKeys;
    for (let i = 0; i < 100; i++) {
      if ((await store.list()).length > 0) return;
      if (await store.claimFirst(CLAIM_SECONDS)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    if ((await store.list()).length > 0) return;
    await store.addFirst(await this.make(this.now()));
    this.cache = undefined;
  }

  /**
   * A rotation: a new key, published at once and signed with after the activation delay. Keys
   * whose tokens have all expired are removed on the way.
   */
  async rotate(): Promise<{ kid: string; activatesAt: number }> {
    await this.ensure();
    const rec = await this.make(this.now() + this.deps.activationDelay * 1000);
    await this.deps.store.signingKeys.add(rec);
    const all = await this.deps.store.signingKeys.list();
    const keep = new Set(this.published(all).map((k) => k.kid));
    await this.deps.store.signingKeys.remove(all.filter((k) => !keep.has(k.kid)).map((k) => k.kid));
    this.cache = undefined;
    return { kid: rec.kid, activatesAt: rec.activatesAt };
  }

  /** The keys by activation, oldest first. */
  private static ordered(keys: SigningKeyRecord[]): SigningKeyRecord[] {
    return [...keys].sort(
      (a, b) => a.activatesAt - b.activatesAt || a.createdAt - b.createdAt || (a.kid < b.kid ? -1 : 1),
    );
  }

  /** The key to sign with at `now`: the newest active one (or, were none active yet, the oldest). */
  private active(keys: SigningKeyRecord[]): SigningKeyRecord | undefined {
    const ordered = SigningKeys.ordered(keys);
    const now = this.now();
    let pick = ordered[0];
    for (const k of ordered) if (k.activatesAt <= now) pick = k;
    return pick;
  }

  /**
   * What the JWKS lists: pending keys, the active one, and superseded ones until every token they
   * signed has expired (a node may sign with a superseded key for up to KEY_CACHE_TTL after the
   * next one activates, and its tokens live tokenTtl, plus a minute of clock skew).
   */
  private published(keys: SigningKeyRecord[]): SigningKeyRecord[] {
    const ordered = SigningKeys.ordered(keys);
    const active = this.active(keys);
    const now = this.now();
    const retention = (this.deps.cacheTtl + this.deps.tokenTtl) * 1000 + SKEW_MS;
    return ordered.filter((k, i) => {
      if (k === active || k.activatesAt > now) return true;
      const next = ordered[i + 1];
      // Superseded by the next key once that one is active.
      return next === undefined || next.activatesAt > now || now < next.activatesAt + retention;
    });
  }

  /** The public keys of the JWKS, read from the store (a rotation on any node shows at once). */
  async jwks(): Promise<{ keys: PublicJwk[] }> {
    let keys = await this.deps.store.signingKeys.list();
    if (keys.length === 0) {
      await this.ensure();
      keys = await this.deps.store.signingKeys.list();
    }
    return {
      // Records made before other algorithms existed hold RSA members only.
      keys: this.published(keys).map((k) => ({
        kty: "RSA",
        ...k.publicJwk,
        kid: k.kid,
        alg: k.alg ?? "RS256",
        use: "sig",
      })),
    };
  }

  /** The key to sign with now (from a cache of at most KEY_CACHE_TTL; made when the store has none). */
  async signer(): Promise<Signer> {
    const now = this.now();
    if (!this.cache || now - this.cache.at >= this.deps.cacheTtl * 1000 || this.cache.keys.length === 0) {
      let keys = await this.deps.store.signingKeys.list();
      if (keys.length === 0) {
        await this.ensure();
        keys = await this.deps.store.signingKeys.list();
      }
      this.cache = { at: now, keys };
    }
    let rec = this.active(this.cache.keys);
    if (!rec) throw new Error("no signing key in the store");
    let key = this.open(rec);
    if (!key) {
      await this.replaceUnopenable(rec);
      this.cache = { at: this.now(), keys: await this.deps.store.signingKeys.list() };
      rec = this.active(this.cache.keys);
      key = rec ? this.open(rec) : null;
      if (!rec || !key) throw new Error("no signing key this SECRET can open (every node must share one SECRET)");
    }
    return { kid: rec.kid, alg: rec.alg ?? "RS256", key };
  }
}
