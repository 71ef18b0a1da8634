// The Redis store's grants: consents, codes, access and refresh tokens, and what revokes them.
import { runScript } from "./scripts.js";
import { registerWithApp } from "./app-grants.js";
import { parse } from "./json.js";
import {
  TAKE_CODE,
  REGISTER_CODE,
  WITHDRAW,
  REVOKE_CODE,
  START_REFRESH,
  ROTATE_REFRESH,
  FORGET_GRANT,
  FORGET_CONSENT,
  SAVE_TOKEN,
  INDEX_TOKEN,
  REVOKE_GRANT,
  LIVE_CODES,
} from "./grants-lua.js";
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import type {
  AppRecord,
  CodeRecord,
  GrantStore,
  RefreshRecord,
  RefreshState,
  RotateResult,
  TokenRecord,
  UserRecord,
} from "../port.js";

export class RedisGrants implements GrantStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}

  async grantConsent(userId: string, clientId: string) {
    await guarded(() =>
      this.redis.multi().sadd(this.keys.consents(userId), clientId).sadd(this.keys.appsUsed(userId), clientId).exec(),
    );
    if (!(await registerWithApp(this.redis, this.keys, clientId, userId, "c", "+inf"))) {
      // The app is gone (or its deletion began): no consent to it is kept.
      await guarded(() =>
        this.redis.multi().srem(this.keys.consents(userId), clientId).srem(this.keys.appsUsed(userId), clientId).exec(),
      );
      return false;
    }
    return true;
  }
  async hasConsent(userId: string, clientId: string) {
    return (await guarded(() => this.redis.sismember(this.keys.consents(userId), clientId))) === 1;
  }
  async consents(userId: string) {
    return (await guarded(() => this.redis.smembers(this.keys.consents(userId)))).sort();
  }
  async withdrawConsent(userId: string, clientId: string, markTtlSeconds: number) {
    const index = this.keys.grantCodes(userId, clientId);
    // The script's answer: whether it removed the consent ("1" or "0"), then the codes to revoke.
    const [removed, ...codes] = (await guarded(() =>
      runScript(this.redis, WITHDRAW, this.keys.consents(userId), index, clientId, String(Date.now())),
    )) as string[];
    await this.revokeCodes(index, codes, markTtlSeconds);
    return removed === "1";
  }
  /** Revokes the codes (and grants) of a consent's index, then drops them from it. */
  private async revokeCodes(index: string, codes: string[], markTtlSeconds: number) {
    if (codes.length === 0) return;
    // Each code lives on its own slot: one small script per code (the marks are idempotent).
    await guarded(() =>
      Promise.all(
        codes.map((h) =>
          runScript(this.redis, REVOKE_CODE, this.keys.code(h), this.keys.codeUsed(h), String(markTtlSeconds)),
        ),
      ),
    );
    await guarded(() => this.redis.zrem(index, ...codes));
  }
  async revokeUserGrants(userId: string, markTtlSeconds: number) {
    const clients = await this.consents(userId);
    for (const clientId of clients) {
      const index = this.keys.grantCodes(userId, clientId);
      const codes = (await guarded(() => runScript(this.redis, LIVE_CODES, index, String(Date.now())))) as string[];
      await this.revokeCodes(index, codes, markTtlSeconds);
    }
  }
  async revokeGrant(grantId: string, markTtlSeconds: number) {
    await guarded(() => runScript(this.redis, REVOKE_GRANT, this.keys.codeUsed(grantId), String(markTtlSeconds)));
  }
  async revokeToken(tokenHash: string, clientId: string) {
    await guarded(() => this.redis.del(this.keys.token(clientId, tokenHash)));
  }
  async startRefresh(refreshHash: string, record: RefreshRecord, now: number) {
    const until = String(record.grantExpiresAt);
    const lookup = this.keys.refreshGrant(refreshHash);
    const key = this.keys.refresh(record.grantId, refreshHash);
    // Its lookup key and its user's index entry first: an app's deletion that comes after the
    // script finds the token in the chain and deletes those too.
    await guarded(() => this.redis.set(lookup, `${record.grantId} ${until}`, "PXAT", until));
    await this.indexToken(record.userId, record.clientId, key, record.grantExpiresAt);
    const ok = await guarded(() =>
      runScript(
        this.redis,
        START_REFRESH,
        this.keys.codeUsed(record.grantId),
        key,
        this.keys.refreshChain(record.grantId),
        JSON.stringify(record),
        record.clientId,
        String(now),
        until,
        refreshHash,
      ),
    );
    if (ok !== 1) {
      await guarded(() =>
        Promise.all([this.redis.del(lookup), this.redis.zrem(this.keys.userTokens(record.userId), key)]),
      );
      await this.dropAppUsedIfGone(record.userId, record.clientId);
    }
    return ok === 1;
  }
  /** A refresh token's grant id and the grant's end (ms), from its lookup key. */
  private async grantOf(refreshHash: string): Promise<{ grantId: string; until: string } | null> {
    const raw = await guarded(() => this.redis.get(this.keys.refreshGrant(refreshHash)));
    const [grantId, until] = raw?.split(" ") ?? [];
    return grantId && until ? { grantId, until } : null;
  }
  async rotateRefresh(refreshHash: string, clientId: string, nextHash: string, now: number): Promise<RotateResult> {
    const grant = await this.grantOf(refreshHash);
    if (!grant) return { kind: "unknown" };
    const { grantId, until } = grant;
    const nextLookup = this.keys.refreshGrant(nextHash);
    // The next token's way back to its grant goes with the rotation (it leads nowhere unless the
    // script saves the token), so that a rotated token is complete when the script is done.
    const [, r] = (await guarded(() =>
      Promise.all([
        this.redis.set(nextLookup, `${grantId} ${until}`, "PXAT", until),
        runScript(
          this.redis,
          ROTATE_REFRESH,
          this.keys.refresh(grantId, refreshHash),
          this.keys.codeUsed(grantId),
          this.keys.refresh(grantId, nextHash),
          this.keys.refreshChain(grantId),
          clientId,
          String(now),
          nextHash,
        ),
      ]),
    )) as [unknown, [string, string?]];
    if (r[0] !== "rotated") {
      await guarded(() => this.redis.del(nextLookup));
      return { kind: r[0] as "reused" | "revoked" | "unknown" };
    }
    const record = JSON.parse(r[1]!) as RefreshRecord;
    const nextKey = this.keys.refresh(grantId, nextHash);
    await this.indexToken(record.userId, record.clientId, nextKey, record.grantExpiresAt);
    // The app's deletion may have deleted the grant since the script (before this index entry was
    // written): then the entry and the lookup key go too, and the token is not handed out.
    if ((await guarded(() => this.redis.exists(nextKey))) === 0) {
      await guarded(() =>
        Promise.all([this.redis.del(nextLookup), this.redis.zrem(this.keys.userTokens(record.userId), nextKey)]),
      );
      await this.dropAppUsedIfGone(record.userId, record.clientId);
      return { kind: "unknown" };
    }
    return { kind: "rotated", record };
  }
  async refreshToken(refreshHash: string, clientId: string): Promise<RefreshState | null> {
    const grantId = (await this.grantOf(refreshHash))?.grantId;
    if (grantId === undefined) return null;
    const [t, mark] = await guarded(() =>
      Promise.all([
        this.redis.hmget(this.keys.refresh(grantId, refreshHash), "rec", "client", "iat", "used"),
        this.redis.get(this.keys.codeUsed(grantId)),
      ]),
    );
    const [rec, client, iat, used] = t;
    if (client !== clientId) return null;
    if (used !== "0" || mark === "revoked" || !rec) return { active: false, grantId };
    return { active: true, grantId, record: JSON.parse(rec) as RefreshRecord, issuedAt: Number(iat) };
  }
  async saveCode(codeHash: string, code: CodeRecord, ttlSeconds: number, grantTtlSeconds: number) {
    const now = Date.now();
    const registered = await guarded(() =>
      runScript(
        this.redis,
        REGISTER_CODE,
        this.keys.consents(code.userId),
        this.keys.grantCodes(code.userId, code.clientId),
        this.keys.appsUsed(code.userId),
        code.clientId,
        codeHash,
        String(now),
        String(now + grantTtlSeconds * 1000),
      ),
    );
    if (registered !== 1) return false;
    await guarded(() => this.redis.set(this.keys.code(codeHash), JSON.stringify(code), "EX", ttlSeconds));
    const until = now + grantTtlSeconds * 1000;
    if (!(await registerWithApp(this.redis, this.keys, code.clientId, code.userId, `k ${codeHash}`, until))) {
      // The app is gone: the code and its entry with the consent go too.
      await guarded(() =>
        Promise.all([
          this.redis.del(this.keys.code(codeHash)),
          this.redis.zrem(this.keys.grantCodes(code.userId, code.clientId), codeHash),
          this.redis.srem(this.keys.appsUsed(code.userId), code.clientId),
        ]),
      );
      return false;
    }
    return true;
  }
  async takeCode(codeHash: string, markTtlSeconds: number) {
    const r = (await guarded(() =>
      runScript(this.redis, TAKE_CODE, this.keys.code(codeHash), this.keys.codeUsed(codeHash), String(markTtlSeconds)),
    )) as [string, string?];
    // TAKE_CODE answers "first" together with the stored code.
    if (r[0] === "first") return { kind: "first" as const, code: JSON.parse(r[1]!) as CodeRecord };
    if (r[0] === "replay") return { kind: "replay" as const };
    return { kind: r[0] === "revoked" ? ("revoked" as const) : ("unknown" as const) };
  }
  async saveToken(tokenHash: string, token: TokenRecord, ttlSeconds: number) {
    const key = this.keys.token(token.clientId, tokenHash);
    const now = Date.now();
    const until = now + ttlSeconds * 1000;
    // The user's index entry first (an app's deletion after the script deletes it with the token).
    // A client credentials token has no user: no entry (one round trip fewer on its hot path).
    if (token.m2m !== true) await this.indexToken(token.userId, token.clientId, key, until);
    const saved = await guarded(() =>
      runScript(
        this.redis,
        SAVE_TOKEN,
        this.keys.app(token.clientId),
        key,
        this.keys.appGrants(token.clientId),
        this.keys.appUserGrants(token.clientId, token.userId),
        JSON.stringify(token),
        String(ttlSeconds),
        `t ${tokenHash}`,
        String(until),
        String(now),
        token.userId,
      ),
    );
    if (saved !== 1) {
      await guarded(() =>
        this.redis
          .multi()
          .zrem(this.keys.userTokens(token.userId), key)
          .srem(this.keys.appsUsed(token.userId), token.clientId)
          .exec(),
      );
    }
    return saved === 1;
  }
  /**
   * Notes a token's key under its user (for forgetUserTokens), and the app among those the user
   * used; the index expires with its last token.
   */
  private async indexToken(userId: string, clientId: string, key: string, until: number) {
    await guarded(() =>
      runScript(
        this.redis,
        INDEX_TOKEN,
        this.keys.userTokens(userId),
        this.keys.appsUsed(userId),
        key,
        String(until),
        String(Date.now()),
        clientId,
      ),
    );
  }
  /** A write undone: the app leaves the user's apps-used set when it is gone (a deletion). */
  private async dropAppUsedIfGone(userId: string, clientId: string) {
    if ((await guarded(() => this.redis.exists(this.keys.app(clientId)))) === 0)
      await guarded(() => this.redis.srem(this.keys.appsUsed(userId), clientId));
  }
  async forgetUserTokens(userId: string) {
    const index = this.keys.userTokens(userId);
    const keys = await guarded(() => this.redis.zrange(index, "0", "-1"));
    // Each token key has its own hash tag: one DEL each (Cluster-safe).
    await guarded(() => Promise.all(keys.map((k) => this.redis.del(k))));
    await guarded(() => this.redis.del(index));
    // The user's entries in the indexes of the apps they used (each app's own tag).
    const used = this.keys.appsUsed(userId);
    const apps = await guarded(() => this.redis.smembers(used));
    await guarded(() =>
      Promise.all(
        apps.map((c) =>
          this.redis.multi().zrem(this.keys.appGrants(c), userId).del(this.keys.appUserGrants(c, userId)).exec(),
        ),
      ),
    );
    await guarded(() => this.redis.del(used));
  }
  async forgetApp(clientId: string) {
    const index = this.keys.appGrants(clientId);
    const users = await guarded(() => this.redis.zrange(index, "0", "-1"));
    await guarded(() => Promise.all(users.map((u) => this.forgetAppUser(clientId, u))));
    await guarded(() => this.redis.del(index));
  }
  /** What a deleted app was issued for one user: its access tokens, grants, and the consent. */
  private async forgetAppUser(clientId: string, userId: string) {
    const entries = this.keys.appUserGrants(clientId, userId);
    const members = await this.redis.zrange(entries, "0", "-1");
    const grants: string[] = [];
    const tokenKeys: string[] = [];
    for (const m of members) {
      const [kind, hash] = m.split(" ");
      if (kind === "k" && hash) grants.push(hash);
      else if (kind === "t" && hash) tokenKeys.push(this.keys.token(clientId, hash));
    }
    // Access tokens share the app's tag (one DEL); the user's index is on the user's.
    if (tokenKeys.length > 0) {
      await this.redis.del(...tokenKeys);
      await this.redis.zrem(this.keys.userTokens(userId), ...tokenKeys);
    }
    await Promise.all([
      ...grants.map((h) => this.forgetGrant(userId, h)),
      runScript(
        this.redis,
        FORGET_CONSENT,
        this.keys.consents(userId),
        this.keys.consentScopes(userId),
        this.keys.grantCodes(userId, clientId),
        this.keys.appsUsed(userId),
        clientId,
      ),
    ]);
    await this.redis.del(entries);
  }
  /** One grant of a deleted app: its code, mark and chain (one script), then the chain's other keys. */
  private async forgetGrant(userId: string, grantId: string) {
    const chain = (await runScript(
      this.redis,
      FORGET_GRANT,
      this.keys.code(grantId),
      this.keys.codeUsed(grantId),
      this.keys.refreshChain(grantId),
      this.keys.refresh(grantId, ""),
    )) as string[];
    if (chain.length === 0) return;
    await Promise.all([
      ...chain.map((h) => this.redis.del(this.keys.refreshGrant(h))),
      this.redis.zrem(this.keys.userTokens(userId), ...chain.map((h) => this.keys.refresh(grantId, h))),
    ]);
  }
  async token(tokenHash: string, clientId: string) {
    const t = parse<TokenRecord>(await guarded(() => this.redis.get(this.keys.token(clientId, tokenHash))));
    if (!t) return null;
    const used = await guarded(() => this.redis.get(this.keys.codeUsed(t.codeHash)));
    return used === "revoked" ? null : t;
  }
  async tokenUser(tokenHash: string, clientId: string) {
    // The token and its app share the client id's hash tag: one MGET (the app is only checked: it
    // exists and is not disabled).
    const [raw, app] = await guarded(() =>
      this.redis.mget(this.keys.token(clientId, tokenHash), this.keys.app(clientId)),
    );
    if (raw === null || raw === undefined || app === null || app === undefined) return null;
    // A disabled app's tokens stop at once (AppRecord.disabled, set by an operator).
    if ((JSON.parse(app) as AppRecord).disabled === true) return null;
    const token = JSON.parse(raw) as TokenRecord;
    // Both GETs under one guard (one async frame fewer per request on this hot path).
    const [used, user] = await guarded(() =>
      Promise.all([this.redis.get(this.keys.codeUsed(token.codeHash)), this.redis.get(this.keys.user(token.userId))]),
    );
    if (used === "revoked" || user === null) return null;
    return { token, user: JSON.parse(user) as UserRecord };
  }
}
