// The Redis store's apps (JSON records), their owners' lists, and the public clients per origin (CORS).
import { parse } from "./json.js";
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import type { AppRecord, AppStore } from "../port.js";
import { corsOriginKey } from "../port.js";

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
  /** Replaces an existing app; a public client's origins (CORS) follow its new redirect URLs. */
  async update(app: AppRecord) {
    const old = await this.get(app.clientId);
    const done = await guarded(() => this.redis.set(this.keys.app(app.clientId), JSON.stringify(app), "XX"));
    if (done === null || !old) return;
    const now = new Set(publicOrigins(app));
    const gone = publicOrigins(old).filter((o) => !now.has(o));
    if (gone.length > 0) {
      await guarded(() => Promise.all(gone.map((o) => this.redis.srem(this.keys.publicOrigin(o), app.clientId))));
    }
    if (now.size > 0) {
      await guarded(() => Promise.all([...now].map((o) => this.redis.sadd(this.keys.publicOrigin(o), app.clientId))));
    }
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
