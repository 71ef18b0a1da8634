// The Redis store's apps (JSON records), their owners' lists, and the public clients per origin (CORS).
import { parse } from "./json.js";
import { guarded } from "./guarded.js";
import { luaScript, runScript } from "./scripts.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import type { AppChange, AppRecord, AppStore } from "../port.js";
import { changedApp, corsOriginKey } from "../port.js";

/** Sets KEYS[1] to ARGV[2] when it holds ARGV[1] (1), else nothing (0): a compare-and-set. */
const SET_IF = luaScript(
  1,
  `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2]) return 1 end return 0`,
);
/** Tries of a compare-and-set before giving up (each lost one means another write landed). */
const MAX_ATTEMPTS = 50;

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
    await guarded(() => this.redis.zadd(this.keys.appIndex, 0, app.clientId));
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
  /**
   * A compare-and-set on the app's JSON, tried again when another write came between its read and
   * its write. The origin sets (other keys, other Cluster slots) follow after: the origins this
   * write touched are set from the record as stored once they are written, so two updates at once
   * leave the sets as the last record says.
   */
  async update(clientId: string, change: AppChange) {
    const key = this.keys.app(clientId);
    for (let attempt = 0; ; attempt++) {
      const raw = await guarded(() => this.redis.get(key));
      if (raw === null) return null;
      const current = JSON.parse(raw) as AppRecord;
      const next = changedApp(current, change);
      if (!next) return current;
      if ((await guarded(() => runScript(this.redis, SET_IF, key, raw, JSON.stringify(next)))) === 1) {
        await this.syncOrigins(clientId, [...publicOrigins(current), ...publicOrigins(next)]);
        return next;
      }
      if (attempt >= MAX_ATTEMPTS) throw new Error(`app ${clientId}: too many writes at once`);
    }
  }
  /** The origins' sets for these origins, as the app's stored record says. */
  private async syncOrigins(clientId: string, touched: string[]): Promise<void> {
    const stored = await this.get(clientId);
    const now = new Set(stored ? publicOrigins(stored) : []);
    await guarded(() =>
      Promise.all(
        [...new Set(touched)].map((o) =>
          now.has(o)
            ? this.redis.sadd(this.keys.publicOrigin(o), clientId)
            : this.redis.srem(this.keys.publicOrigin(o), clientId),
        ),
      ),
    );
  }
  async delete(clientId: string) {
    const app = await this.get(clientId);
    await guarded(() => this.redis.del(this.keys.app(clientId)));
    await guarded(() => this.redis.zrem(this.keys.appIndex, clientId));
    if (!app) return;
    await guarded(() => this.redis.srem(this.keys.ownerApps(app.ownerId), clientId));
    const origins = publicOrigins(app);
    if (origins.length > 0) {
      await guarded(() => Promise.all(origins.map((o) => this.redis.srem(this.keys.publicOrigin(o), clientId))));
    }
  }
  /** Walks the sorted set of client ids (one key: safe on a Cluster), reading each page's records. */
  async list({ after, limit }: { after?: string; limit: number }) {
    const ids = await guarded(() =>
      this.redis.zrangebylex(this.keys.appIndex, after === undefined ? "-" : `(${after}`, "+", "LIMIT", 0, limit),
    );
    const apps = await Promise.all(ids.map((id) => this.get(id)));
    return apps.filter((a): a is AppRecord => a !== null);
  }
  async reindex(app: AppRecord): Promise<void> {
    if ((await guarded(() => this.redis.exists(this.keys.app(app.clientId)))) === 0) return;
    await guarded(() => this.redis.zadd(this.keys.appIndex, 0, app.clientId));
  }
  async listByOwner(ownerId: string) {
    const ids = await guarded(() => this.redis.smembers(this.keys.ownerApps(ownerId)));
    const apps = await Promise.all(ids.sort().map((id) => this.get(id)));
    return apps.filter((a): a is AppRecord => a !== null);
  }
}

// Takes a code atomically: KEYS[1] code, KEYS[2] its "used" mark (same hash tag), ARGV[1] mark TTL.
// A code whose mark says "revoked" (its consent was withdrawn) is never taken.
