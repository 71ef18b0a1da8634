// The Redis store's part for sign-in. Records are JSON strings; key names come from keys.ts.
import { luaScript, runScript } from "./scripts.js";
import { ADD_ENTRY_LUA, registerWithApp } from "./app-grants.js";
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import type {
  AccountStore,
  AppRecord,
  AppStore,
  CodeRecord,
  GrantStore,
  RefreshRecord,
  RefreshState,
  RotateResult,
  SessionOwner,
  SessionStore,
  SessionSummary,
  TokenRecord,
  UserChange,
  UserRecord,
} from "../port.js";
import { bySeen, changedUser, corsOriginKey, summaryOf } from "../port.js";

const parse = <T>(raw: string | null): T | null => (raw === null ? null : (JSON.parse(raw) as T));

/** Deletes KEYS[1] when it holds ARGV[1]. */
const DEL_IF = luaScript(
  1,
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`,
);

/** Sets KEYS[1] to ARGV[2] when it holds ARGV[1] (1), else nothing (0): a compare-and-set. */
const SET_IF = luaScript(
  1,
  `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2]) return 1 end return 0`,
);

/**
 * How often an update reads again before giving up: each failed attempt means another write of the
 * record succeeded, so n updates at once all finish within n attempts.
 */
const MAX_ATTEMPTS = 1000;

export class RedisAccounts implements AccountStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}

  async create(user: UserRecord): Promise<boolean> {
    const ok = await guarded(() => this.redis.set(this.keys.username(user.username), user.id, "NX"));
    if (ok !== "OK") return false;
    try {
      await guarded(() => this.redis.set(this.keys.user(user.id), JSON.stringify(user)));
    } catch (err) {
      // Free the name again so a failed sign-up does not hold it (best effort: Redis is failing).
      await this.redis.del(this.keys.username(user.username)).catch(() => undefined);
      throw err;
    }
    return true;
  }
  async byId(id: string) {
    return parse<UserRecord>(await guarded(() => this.redis.get(this.keys.user(id))));
  }
  async byUsername(username: string) {
    const id = await guarded(() => this.redis.get(this.keys.username(username)));
    return id === null ? null : this.byId(id);
  }
  /**
   * Optimistic: read the record, change it, and write it with one script only while the key still
   * holds what was read (compare-and-set); when another write came between, read again.
   */
  async update(id: string, change: UserChange) {
    const key = this.keys.user(id);
    for (let attempt = 0; ; attempt++) {
      const raw = await guarded(() => this.redis.get(key));
      if (raw === null) return null;
      const current = JSON.parse(raw) as UserRecord;
      const next = changedUser(current, change);
      if (!next) return current;
      const written = await guarded(() => runScript(this.redis, SET_IF, key, raw, JSON.stringify(next)));
      if (written === 1) return next;
      if (attempt >= MAX_ATTEMPTS) throw new Error(`user ${id}: too many writes at once`);
    }
  }
  async delete(user: UserRecord) {
    const gone = await guarded(() => this.redis.del(this.keys.user(user.id)));
    // The name is freed only while it still names this user (one key: GET and DEL in one script).
    await guarded(() => runScript(this.redis, DEL_IF, this.keys.username(user.username), user.id));
    await guarded(() => this.redis.del(this.keys.picture(user.id)));
    return gone === 1;
  }
  async savePicture(id: string, data: Buffer) {
    await guarded(() => this.redis.set(this.keys.picture(id), data));
  }
  async picture(id: string) {
    return guarded(() => this.redis.getBuffer(this.keys.picture(id)));
  }
}

export class RedisSessions implements SessionStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}
  async get(sid: string) {
    return guarded(() => this.redis.get(this.keys.session(sid)));
  }
  async set(sid: string, data: string, ttlSeconds: number, owner?: SessionOwner) {
    const ttl = Math.max(1, ttlSeconds);
    const key = this.keys.session(sid);
    if (!owner) {
      await guarded(() => this.redis.set(key, data, "EX", ttl));
      return;
    }
    // A write to an existing session (create: false) never brings back one that was signed out.
    const ok = await guarded(() =>
      owner.create ? this.redis.set(key, data, "EX", ttl) : this.redis.set(key, data, "EX", ttl, "XX"),
    );
    if (ok !== "OK") return;
    const expiresAt = Date.now() + ttl * 1000;
    const index = this.keys.userSessions(owner.userId);
    // The index lives as long as the user's last session: NX gives a fresh index its expiry, GT
    // moves it later (one key, one MULTI).
    await guarded(() =>
      this.redis
        .multi()
        .hset(index, sid, JSON.stringify(summaryOf(sid, owner, expiresAt)))
        .pexpireat(index, expiresAt, "NX")
        .pexpireat(index, expiresAt, "GT")
        .exec(),
    );
  }
  async destroy(sid: string, userId?: string) {
    await guarded(() => this.redis.del(this.keys.session(sid)));
    if (userId !== undefined) await guarded(() => this.redis.hdel(this.keys.userSessions(userId), sid));
  }
  /** The index's entries; those whose session ended are dropped (cleanup on read). */
  private async entries(userId: string): Promise<SessionSummary[]> {
    const index = this.keys.userSessions(userId);
    const raw = await guarded(() => this.redis.hgetall(index));
    const now = Date.now();
    const all = Object.entries(raw).map(([sid, json]) => {
      let s: SessionSummary | null;
      try {
        s = JSON.parse(json) as SessionSummary;
      } catch {
        s = null;
      }
      return { sid, s };
    });
    // Each session key has its own hash tag: one EXISTS each (Cluster-safe), at once.
    const live = await guarded(() =>
      Promise.all(all.map((e) => (e.s && e.s.expiresAt > now ? this.redis.exists(this.keys.session(e.sid)) : 0))),
    );
    const ended = all.filter((_, i) => live[i] !== 1).map((e) => e.sid);
    if (ended.length > 0) await guarded(() => this.redis.hdel(index, ...ended));
    return all.filter((_, i) => live[i] === 1).map((e) => e.s!);
  }
  async listForUser(userId: string) {
    return (await this.entries(userId)).sort(bySeen);
  }
  async destroyForUser(userId: string, exceptSid?: string) {
    const index = this.keys.userSessions(userId);
    const sids = (await guarded(() => this.redis.hkeys(index))).filter((sid) => sid !== exceptSid);
    if (sids.length === 0) return 0;
    const gone = await guarded(() => Promise.all(sids.map((sid) => this.redis.del(this.keys.session(sid)))));
    await guarded(() => this.redis.hdel(index, ...sids));
    return gone.reduce((n, d) => n + d, 0);
  }
}

/** The CORS origins (corsOriginKey) of a public client's redirect URLs; none for a confidential one. */
const publicOrigins = (app: AppRecord): string[] =>
  app.public ? [...new Set(app.redirectUris.map(corsOriginKey).filter((o): o is string => o !== undefined))] : [];

export class RedisApps implements AppStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}
  async create(app: AppRecord) {
    await guarded(() => this.redis.set(this.keys.app(app.clientId), JSON.stringify(app)));
    await guarded(() => this.redis.sadd(this.keys.ownerApps(app.ownerId), app.clientId));
    const origins = publicOrigins(app);
    if (origins.length > 0) {
      await guarded(() => Promise.all(origins.map((o) => this.redis.sadd(this.keys.publicOrigin(o), app.clientId))));
    }
  }
  async publicOriginKnown(origin: string) {
    return (await guarded(() => this.redis.scard(this.keys.publicOrigin(origin)))) > 0;
  }
  async get(clientId: string) {
    return parse<AppRecord>(await guarded(() => this.redis.get(this.keys.app(clientId))));
  }
  async update(app: AppRecord) {
    await guarded(() => this.redis.set(this.keys.app(app.clientId), JSON.stringify(app), "XX"));
  }
  async delete(clientId: string) {
    const app = await this.get(clientId);
    await guarded(() => this.redis.del(this.keys.app(clientId)));
    if (!app) return;
    await guarded(() => this.redis.srem(this.keys.ownerApps(app.ownerId), clientId));
    const origins = publicOrigins(app);
    if (origins.length > 0) {
      await guarded(() => Promise.all(origins.map((o) => this.redis.srem(this.keys.publicOrigin(o), clientId))));
    }
  }
  async listByOwner(ownerId: string) {
    const ids = await guarded(() => this.redis.smembers(this.keys.ownerApps(ownerId)));
    const apps = await Promise.all(ids.sort().map((id) => this.get(id)));
    return apps.filter((a): a is AppRecord => a !== null);
  }
}

// Takes a code atomically: KEYS[1] code, KEYS[2] its "used" mark (same hash tag), ARGV[1] mark TTL.
// A code whose mark says "revoked" (its consent was withdrawn) is never taken.
const TAKE_CODE = luaScript(
  2,
  `
if redis.call('GET', KEYS[2]) == 'revoked' then
  redis.call('DEL', KEYS[1])
  return {'revoked'}
end
local c = redis.call('GET', KEYS[1])
if c then
  redis.call('DEL', KEYS[1])
  redis.call('SET', KEYS[2], 'ok', 'EX', ARGV[1])
  return {'first', c}
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('SET', KEYS[2], 'revoked', 'KEEPTTL')
  return {'replay'}
end
return {'unknown'}`,
);

// Registers a code with the consent it was issued under, while that consent holds: KEYS[1] the
// user's consents, KEYS[2] the consent's codes, KEYS[3] the apps the user used (same tag); ARGV
// client id, code hash, now (ms), until (ms). Entries past their time are dropped on the way, so
// the set holds only live ones.
const REGISTER_CODE = luaScript(
  3,
  `
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('SADD', KEYS[3], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[2])
local ttl = tonumber(ARGV[4]) - tonumber(ARGV[3])
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1`,
);

// Withdraws a consent and returns the codes registered with it (same keys as REGISTER_CODE;
// ARGV client id, now). The set is kept until every code in it is revoked (a retry finds them).
const WITHDRAW = luaScript(
  2,
  `
redis.call('SREM', KEYS[1], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
return redis.call('ZRANGE', KEYS[2], 0, -1)`,
);

// Revokes one code and its grant: KEYS[1] code, KEYS[2] its mark (same tag), ARGV[1] mark TTL for
// a mark not there yet (an existing one keeps its own: a grant with refresh tokens needs it long).
// The mark is the one a replay sets, so the token check on GET /auth/user stays what it was.
const REVOKE_CODE = luaScript(
  2,
  `
redis.call('DEL', KEYS[1])
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('SET', KEYS[2], 'revoked', 'KEEPTTL')
else
  redis.call('SET', KEYS[2], 'revoked', 'EX', ARGV[1])
end
return 1`,
);

// The first refresh token of a grant: KEYS[1] the grant's mark, KEYS[2] the token's hash, KEYS[3]
// the grant's chain (same tag); ARGV record JSON, client id, now (ms), the grant's end (ms), the
// token's hash. The mark lives until the end. No mark: the code's taking left one, so the grant
// was deleted meanwhile (its app's deletion): nothing is saved.
const START_REFRESH = luaScript(
  3,
  `
local mark = redis.call('GET', KEYS[1])
if mark ~= 'ok' then return 0 end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[4]) - tonumber(ARGV[3]) then
  redis.call('PEXPIREAT', KEYS[1], ARGV[4])
end
redis.call('HSET', KEYS[2], 'rec', ARGV[1], 'client', ARGV[2], 'iat', ARGV[3], 'until', ARGV[4], 'used', '0')
redis.call('PEXPIREAT', KEYS[2], ARGV[4])
redis.call('SADD', KEYS[3], ARGV[5])
if redis.call('PTTL', KEYS[3]) < tonumber(ARGV[4]) - tonumber(ARGV[3]) then
  redis.call('PEXPIREAT', KEYS[3], ARGV[4])
end
return 1`,
);

// Rotation: KEYS[1] the presented token, KEYS[2] the grant's mark, KEYS[3] the next token, KEYS[4]
// the grant's chain (one tag: the grant); ARGV client id, now (ms), the next token's hash. Used
// once already: the grant is revoked (reuse). A
// used token keeps client, used and until only (what reuse detection reads): a month of hourly
// rotations leaves small entries.
const ROTATE_REFRESH = luaScript(
  4,
  `
local t = redis.call('HMGET', KEYS[1], 'rec', 'client', 'used', 'until')
if not t[2] or t[2] ~= ARGV[1] then return {'unknown'} end
if redis.call('GET', KEYS[2]) == 'revoked' then return {'revoked'} end
local untilMs = t[4]
if t[3] == '1' then
  if redis.call('EXISTS', KEYS[2]) == 1 then
    redis.call('SET', KEYS[2], 'revoked', 'KEEPTTL')
  else
    redis.call('SET', KEYS[2], 'revoked', 'PXAT', untilMs)
  end
  return {'reused'}
end
redis.call('HSET', KEYS[1], 'used', '1')
redis.call('HDEL', KEYS[1], 'rec', 'iat')
redis.call('HSET', KEYS[3], 'rec', t[1], 'client', ARGV[1], 'iat', ARGV[2], 'until', untilMs, 'used', '0')
redis.call('PEXPIREAT', KEYS[3], untilMs)
redis.call('SADD', KEYS[4], ARGV[3])
if redis.call('PTTL', KEYS[4]) < tonumber(untilMs) - tonumber(ARGV[2]) then
  redis.call('PEXPIREAT', KEYS[4], untilMs)
end
return {'rotated', t[1]}`,
);

// An app's deletion, for one grant of it (one tag: the grant): KEYS[1] the code, KEYS[2] its mark,
// KEYS[3] the chain; ARGV[1] the prefix of the grant's refresh token keys. Deletes the code, the
// mark and every refresh token of the chain at once, and returns the chain (whose lookup keys and
// user index entries live elsewhere): a rotation after this finds its token gone.
const FORGET_GRANT = luaScript(
  3,
  `
local chain = redis.call('SMEMBERS', KEYS[3])
for _, h in ipairs(chain) do redis.call('DEL', ARGV[1] .. h) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return chain`,
);

// An app's deletion, for one user (one tag: the user): KEYS[1] consents, KEYS[2] consent scopes,
// KEYS[3] the consent's codes, KEYS[4] the apps the user used; ARGV[1] the client id.
const FORGET_CONSENT = luaScript(
  4,
  `
redis.call('SREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[3])
redis.call('SREM', KEYS[4], ARGV[1])
return 1`,
);

// An access token, saved only while its app exists: KEYS[1] the app, KEYS[2] the token, KEYS[3]
// the app's users, KEYS[4] the user's entries (one tag: the client id); ARGV token JSON, TTL (s),
// entry, until (ms), now (ms), user id.
const SAVE_TOKEN = luaScript(
  4,
  `${ADD_ENTRY_LUA}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[2])
add(KEYS[4], ARGV[4], ARGV[3], ARGV[5])
add(KEYS[3], ARGV[4], ARGV[6], ARGV[5])
return 1`,
);

// Notes an access token under its user: KEYS[1] the user's tokens (score: until, ms), KEYS[2] the
// apps the user used (one tag: the user); ARGV the token's key, until (ms), now (ms), client id.
// Entries past their time go; the index lives as long as its last token.
const INDEX_TOKEN = luaScript(
  2,
  `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[2], 'NX')
redis.call('PEXPIREAT', KEYS[1], ARGV[2], 'GT')
redis.call('SADD', KEYS[2], ARGV[4])
return 1`,
);

// Revokes a grant by its mark alone (KEYS[1]); ARGV[1] TTL for a mark not there yet.
const REVOKE_GRANT = luaScript(
  1,
  `
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('SET', KEYS[1], 'revoked', 'KEEPTTL')
else
  redis.call('SET', KEYS[1], 'revoked', 'EX', ARGV[1])
end
return 1`,
);

// The live codes of a consent, for revoking them without withdrawing it (same keys as REGISTER_CODE).
const LIVE_CODES = luaScript(
  1,
  `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZRANGE', KEYS[1], 0, -1)`,
);

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
    const codes = (await guarded(() =>
      runScript(this.redis, WITHDRAW, this.keys.consents(userId), index, clientId, String(Date.now())),
    )) as string[];
    await this.revokeCodes(index, codes, markTtlSeconds);
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
    await this.indexToken(token.userId, token.clientId, key, until);
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
    // The token and its app share the client id's hash tag: one MGET (the app is only checked).
    const [raw, app] = await guarded(() =>
      this.redis.mget(this.keys.token(clientId, tokenHash), this.keys.app(clientId)),
    );
    if (raw === null || raw === undefined || app === null || app === undefined) return null;
    const token = JSON.parse(raw) as TokenRecord;
    // Both GETs under one guard (one async frame fewer per request on this hot path).
    const [used, user] = await guarded(() =>
      Promise.all([this.redis.get(this.keys.codeUsed(token.codeHash)), this.redis.get(this.keys.user(token.userId))]),
    );
    if (used === "revoked" || user === null) return null;
    return { token, user: JSON.parse(user) as UserRecord };
  }
}
