// CUSTOM TOKENs (docs/realtime.md#custom-tokens, docs/cli.md#sigil-tokens-create): issued per app, signed JWTs whose id (jti) names a stored
// record, so that a token can be listed (without its value), expire and be revoked.
import { createHash, createSecretKey, type KeyObject } from "node:crypto";
import { Remembered } from "../remembered.js";
import jwt from "jsonwebtoken";
import { invalidRequest, invalidToken, notFound } from "../errors.js";
import type { CustomTokenRecord, Store } from "../store/port.js";
import { channelName } from "./channel-names.js";
import { keyedHash, randomId } from "./secrets.js";

/** Whether an app (client_id) exists; wired to the apps of the sign-in half by the caller. */
export type AppExists = (clientId: string) => Promise<boolean>;

export interface CustomTokenDeps {
  store: Store;
  secret: string;
  appExists: AppExists;
}

export interface IssueInput {
  app: string;
  name?: string;
  /** Seconds until the token expires; none: it never does. */
  expiresIn?: number;
  /** May publish to the app's channels (POST /realtime/publish). */
  publish?: boolean;
  /** Limits the token to these channels (publishing and subscribing); none: every channel. */
  channels?: readonly string[];
}

/** A verified token: which app, which token id, and when it expires (ms), if ever. */
export interface TokenIdentity {
  app: string;
  tokenId: string;
  expiresAt?: number;
  /** Made with --publish. */
  publish?: boolean;
  /** Made with --channel: the only channels it may use. */
  channels?: readonly string[];
}

const AUDIENCE = "sigil:custom-token";
const MAX_EXPIRES_IN = 10 * 365 * 86400;
const MAX_TOKEN_LENGTH = 2048;
/** Most channels one token may be limited to. */
const MAX_CHANNELS = 100;

export class CustomTokens {
  /**
   * Domain-separated signing key, so no other token signed with SECRET can pass as this one. A
   * KeyObject made once: given a string, jsonwebtoken first tries (and fails) to parse it as a
   * PEM public key on every call — about 0.4 ms of CPU per handshake, most of its cost.
   */
  private readonly key: KeyObject;
  /** Digests of tokens whose signature was checked here, and what they name (claimsOf). */
  private readonly checked = new Remembered<string, { sub: string; jti: string }>(CHECKED_KEPT);

  constructor(private readonly deps: CustomTokenDeps) {
    this.key = createSecretKey(Buffer.from(keyedHash(deps.secret, "custom-token-signing"), "utf8"));
  }

  /** Issues a token; its value is returned here once and never stored. */
  async create(input: IssueInput): Promise<{ id: string; token: string; record: CustomTokenRecord }> {
    const name = (input.name ?? "").trim() || "custom token";
    if ([...name].length > 64) throw invalidRequest("err.lengthRange", { name: "name", min: "1", max: "64" });
    const exp = input.expiresIn;
    if (exp !== undefined && (!Number.isInteger(exp) || exp < 1 || exp > MAX_EXPIRES_IN)) {
      throw invalidRequest("err.expiresIn", { max: String(MAX_EXPIRES_IN) });
    }
    const channels = input.channels === undefined ? undefined : [...new Set(input.channels)];
    if (channels !== undefined) {
      if (channels.length === 0 || channels.length > MAX_CHANNELS)
        throw invalidRequest("err.tokenChannels", { max: MAX_CHANNELS });
      for (const c of channels) channelName(c);
    }
    if (!(await this.deps.appExists(input.app))) throw notFound("err.noAppClientId");
    const now = Date.now();
    const record: CustomTokenRecord = {
      id: randomId(), // never begins with "-" (docs/cli.md#sigil-tokens-create)
      app: input.app,
      name,
      createdAt: now,
      ...(exp !== undefined ? { expiresAt: Math.floor(now / 1000) * 1000 + exp * 1000 } : {}),
      revoked: false,
      ...(input.publish === true ? { publish: true } : {}),
      ...(channels !== undefined ? { channels } : {}),
    };
    await this.deps.store.customTokens.create(record);
    const claims: Record<string, unknown> = {
      sub: record.app,
      jti: record.id,
      aud: AUDIENCE,
      iat: Math.floor(now / 1000),
    };
    if (record.expiresAt !== undefined) claims.exp = record.expiresAt / 1000;
    const token = jwt.sign(claims, this.key, { algorithm: "HS256", noTimestamp: true });
    return { id: record.id, token, record };
  }

  /** The app's tokens, newest first, without their values. */
  async list(app: string): Promise<CustomTokenRecord[]> {
    const all = await this.deps.store.customTokens.list(app);
    return all.sort((a, b) => b.createdAt - a.createdAt);
  }

  /** Revokes one of the app's tokens; its live sockets are dropped on every node. */
  async revoke(app: string, id: string): Promise<void> {
    if (!(await this.deps.store.customTokens.revoke(app, id))) throw notFound("err.noTokenId");
  }

  /** Revokes every token of an app (call when the app is deleted: its tokens die with it). */
  async revokeAll(app: string): Promise<number> {
    const live = (await this.deps.store.customTokens.list(app)).filter((t) => !t.revoked);
    for (const t of live) await this.deps.store.customTokens.revoke(app, t.id);
    return live.length;
  }

  /** Whether a token (already verified once) is still neither revoked nor expired. */
  async isActive(app: string, id: string): Promise<boolean> {
    const rec = await this.deps.store.customTokens.get(app, id);
    return !!rec && !rec.revoked && (rec.expiresAt === undefined || rec.expiresAt > Date.now());
  }

  /** The identity behind a presented token, or invalid_token (missing, malformed, expired, revoked). */
  async verify(token: unknown): Promise<TokenIdentity> {
    if (typeof token !== "string" || token === "" || token.length > MAX_TOKEN_LENGTH) throw invalid();
    const claims = this.claimsOf(token);
    const rec = await this.deps.store.customTokens.get(claims.sub, claims.jti);
    if (!rec || rec.revoked) throw invalid();
    if (rec.expiresAt !== undefined && rec.expiresAt <= Date.now()) throw invalid();
    return {
      app: rec.app,
      tokenId: rec.id,
      ...(rec.expiresAt !== undefined ? { expiresAt: rec.expiresAt } : {}),
      ...(rec.publish === true ? { publish: true } : {}),
      ...(rec.channels !== undefined ? { channels: rec.channels } : {}),
    };
  }

  /**
   * The app and id a token names, once its signature and audience are checked. A token checked
   * before is not checked again (jsonwebtoken's verify is most of an owned `new`'s own work, and an
   * app sends the same token with every request): the signature of a given string never changes,
   * and what does — revoked, expired (the record's expiresAt, which is the token's exp) — is read
   * from the store on every use all the same.
   */
  private claimsOf(token: string): { sub: string; jti: string } {
    // Remembered by a digest: a node's memory keeps no token it was shown.
    const digest = createHash("sha256").update(token).digest("base64");
    return this.checked.get(digest, () => {
      let c: string | jwt.JwtPayload;
      try {
        c = jwt.verify(token, this.key, { algorithms: ["HS256"], audience: AUDIENCE });
      } catch {
        throw invalid();
      }
      if (typeof c === "string" || typeof c.sub !== "string" || typeof c.jti !== "string") throw invalid();
      return { sub: c.sub, jti: c.jti };
    });
  }
}

/** Tokens whose signature a node remembers having checked; past it, forgotten at once. */
const CHECKED_KEPT = 10_000;

const invalid = () => invalidToken("err.customTokenInvalid");

/** The token of an `Authorization: Bearer <token>` header value (undefined when absent). */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return m ? m[1] : "";
}
