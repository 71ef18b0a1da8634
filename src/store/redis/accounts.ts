// The Redis store's accounts: users (JSON strings), usernames (SET NX keeps them unique), the sorted
// set of usernames that pages them (keys.usernameIndex) and pictures.
import { luaScript, runScript } from "./scripts.js";
import { parse } from "./json.js";
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import type { AccountStore, UserChange, UserListOptions, UserRecord } from "../port.js";
import { USER_LIST_BATCH, changedUser, userMatches } from "../port.js";

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

/** A user's entry in keys.usernameIndex: "\0" sorts before every character a username may hold. */
const indexEntry = (user: { username: string; id: string }) => `${user.username}\0${user.id}`;

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
      // Indexed before the record is written: a list skips an entry whose record is not there yet,
      // and the index never misses a stored user.
      await guarded(() => this.redis.zadd(this.keys.usernameIndex, 0, indexEntry(user)));
      await guarded(() => this.redis.set(this.keys.user(user.id), JSON.stringify(user)));
    } catch (err) {
      // Free the name again so a failed sign-up does not hold it (best effort: Redis is failing).
      await this.redis.zrem(this.keys.usernameIndex, indexEntry(user)).catch(() => undefined);
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
    await guarded(() => this.redis.zrem(this.keys.usernameIndex, indexEntry(user)));
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
  /**
   * Walks the index from after's entries on (ZRANGE BYLEX: "<after>\x01" sorts after every entry of
   * that name and before the next name), reading the records of a batch at once.
   */
  async list({ query, after, limit }: UserListOptions) {
    const out: UserRecord[] = [];
    let start = after === undefined ? "-" : `(${after}\x01`;
    while (out.length < limit) {
      const want = query ? USER_LIST_BATCH : limit - out.length;
      const entries = await guarded(() =>
        this.redis.zrangebylex(this.keys.usernameIndex, start, "+", "LIMIT", 0, want),
      );
      const ids = entries.map((e) => e.slice(e.indexOf("\0") + 1));
      const raws = await Promise.all(ids.map((id) => guarded(() => this.redis.get(this.keys.user(id)))));
      for (const raw of raws) {
        const user = parse<UserRecord>(raw);
        if (user && userMatches(user, query)) out.push(user);
        if (out.length >= limit) break;
      }
      if (entries.length < want) break;
      start = `(${entries.at(-1)!}`;
    }
    return out;
  }
  async reindex(user: UserRecord): Promise<void> {
    if ((await guarded(() => this.redis.exists(this.keys.user(user.id)))) === 0) return;
    await guarded(() => this.redis.zadd(this.keys.usernameIndex, 0, indexEntry(user)));
  }
}
