// The Redis store's part for sign-in. Records are JSON strings; key names come from keys.ts.
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import type {
  AccountStore,
  AppRecord,
  AppStore,
  CodeRecord,
  GrantStore,
  SessionStore,
  TokenRecord,
  UserRecord,
} from "../port.js";

const parse = <T>(raw: string | null): T | null => (raw === null ? null : (JSON.parse(raw) as T));

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
  async update(user: UserRecord) {
    await guarded(() => this.redis.set(this.keys.user(user.id), JSON.stringify(user), "XX"));
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
  async set(sid: string, data: string, ttlSeconds: number) {
    await guarded(() => this.redis.set(this.keys.session(sid), data, "EX", Math.max(1, ttlSeconds)));
  }
  async destroy(sid: string) {
    await guarded(() => this.redis.del(this.keys.session(sid)));
  }
}

export class RedisApps implements AppStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}
  async create(app: AppRecord) {
    await guarded(() => this.redis.set(this.keys.app(app.clientId), JSON.stringify(app)));
    await guarded(() => this.redis.sadd(this.keys.ownerApps(app.ownerId), app.clientId));
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
    if (app) await guarded(() => this.redis.srem(this.keys.ownerApps(app.ownerId), clientId));
  }
  async listByOwner(ownerId: string) {
    const ids = await guarded(() => this.redis.smembers(this.keys.ownerApps(ownerId)));
    const apps = await Promise.all(ids.sort().map((id) => this.get(id)));
    return apps.filter((a): a is AppRecord => a !== null);
  }
}

// Takes a code atomically: KEYS[1] code, KEYS[2] its "used" mark (same hash tag), ARGV[1] mark TTL.
// A code whose mark says "revoked" (its consent was withdrawn) is never taken.
const TAKE_CODE = `
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
  redis.call('SET', KEYS[2], 'revoked', 'EX', ARGV[1])
  return {'replay'}
end
return {'unknown'}`;

// Registers a code with the consent it was issued under, while that consent holds: KEYS[1] the
// user's consents, KEYS[2] the consent's codes (same tag); ARGV client id, code hash, now (ms),
// until (ms). Entries past their time are dropped on the way, so the set holds only live ones.
const REGISTER_CODE = `
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[2])
local ttl = tonumber(ARGV[4]) - tonumber(ARGV[3])
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1`;

// Withdraws a consent and returns the codes registered with it (same keys as REGISTER_CODE;
// ARGV client id, now). The set is kept until every code in it is revoked (a retry finds them).
const WITHDRAW = `
redis.call('SREM', KEYS[1], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
return redis.call('ZRANGE', KEYS[2], 0, -1)`;

// Revokes one code: KEYS[1] code, KEYS[2] its mark (same tag), ARGV[1] mark TTL. The mark is the
// one a replay sets, so the token check on GET /auth/user stays what it was.
const REVOKE_CODE = `
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], 'revoked', 'EX', ARGV[1])
return 1`;

export class RedisGrants implements GrantStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}

  async grantConsent(userId: string, clientId: string) {
    await guarded(() => this.redis.sadd(this.keys.consents(userId), clientId));
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
      this.redis.eval(WITHDRAW, 2, this.keys.consents(userId), index, clientId, String(Date.now())),
    )) as string[];
    if (codes.length === 0) return;
    // Each code lives on its own slot: one small script per code (the marks are idempotent).
    await guarded(() =>
      Promise.all(
        codes.map((h) =>
          this.redis.eval(REVOKE_CODE, 2, this.keys.code(h), this.keys.codeUsed(h), String(markTtlSeconds)),
        ),
      ),
    );
    await guarded(() => this.redis.zrem(index, ...codes));
  }
  async saveCode(codeHash: string, code: CodeRecord, ttlSeconds: number, grantTtlSeconds: number) {
    const now = Date.now();
    const registered = await guarded(() =>
      this.redis.eval(
        REGISTER_CODE,
        2,
        this.keys.consents(code.userId),
        this.keys.grantCodes(code.userId, code.clientId),
        code.clientId,
        codeHash,
        String(now),
        String(now + grantTtlSeconds * 1000),
      ),
    );
    if (registered !== 1) return false;
    await guarded(() => this.redis.set(this.keys.code(codeHash), JSON.stringify(code), "EX", ttlSeconds));
    return true;
  }
  async takeCode(codeHash: string, markTtlSeconds: number) {
    const r = (await guarded(() =>
      this.redis.eval(TAKE_CODE, 2, this.keys.code(codeHash), this.keys.codeUsed(codeHash), String(markTtlSeconds)),
    )) as [string, string?];
    // TAKE_CODE answers "first" together with the stored code.
    if (r[0] === "first") return { kind: "first" as const, code: JSON.parse(r[1]!) as CodeRecord };
    if (r[0] === "replay") return { kind: "replay" as const };
    return { kind: r[0] === "revoked" ? ("revoked" as const) : ("unknown" as const) };
  }
  async saveToken(tokenHash: string, token: TokenRecord, ttlSeconds: number) {
    await guarded(() =>
      this.redis.set(this.keys.token(token.clientId, tokenHash), JSON.stringify(token), "EX", ttlSeconds),
    );
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
