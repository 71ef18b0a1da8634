// The Redis store's accounts: users (JSON strings), usernames (SET NX keeps them unique), the sorted
// set of usernames that pages them (keys.usernameIndex), the sorted set of search words
// (keys.userSearch, store/user-search.ts) and pictures.
import { luaScript, runScript } from "./scripts.js";
import { parse } from "./json.js";
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import type { AccountStore, UserChange, UserListOptions, UserRecord } from "../port.js";
import { USER_LIST_BATCH, changedUser, userMatches } from "../port.js";
import {
  SEARCH_ENTRY_CAP,
  SEARCH_WORD_MAX,
  indexWords,
  pageOfHits,
  sameWords,
  type SearchHit,
} from "../user-search.js";

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

/** A user's entries in keys.userSearch: "<word>\0<username>\0<id>" ("\0" is in none of them). */
const searchEntries = (user: UserRecord) => indexWords(user).map((w) => `${w}\0${user.username}\0${user.id}`);

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
      await this.addWords(user);
      await guarded(() => this.redis.set(this.keys.user(user.id), JSON.stringify(user)));
    } catch (err) {
      // Free the name again so a failed sign-up does not hold it (best effort: Redis is failing).
      await this.redis.zrem(this.keys.usernameIndex, indexEntry(user)).catch(() => undefined);
      await this.redis.zrem(this.keys.userSearch, ...searchEntries(user)).catch(() => undefined);
      await this.redis.del(this.keys.username(user.username)).catch(() => undefined);
      throw err;
    }
    return true;
  }
  private async addWords(user: UserRecord): Promise<void> {
    const entries = searchEntries(user);
    await guarded(() => this.redis.zadd(this.keys.userSearch, ...entries.flatMap((e) => [0, e])));
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
   *
   * The search words (another shard on a Cluster: not in the script) are kept so that the index
   * never misses a stored word: the new words are added before the write, the old ones removed
   * after it, then the words of the record as stored then are added again. Of updates at once, the
   * one whose removal comes last reads, after it, the record every write left, and adds its words.
   * A word left over is harmless: a query checks every record it reads (store/user-search.ts).
   */
  async update(id: string, change: UserChange) {
    const key = this.keys.user(id);
    for (let attempt = 0; ; attempt++) {
      const raw = await guarded(() => this.redis.get(key));
      if (raw === null) return null;
      const current = JSON.parse(raw) as UserRecord;
      const next = changedUser(current, change);
      if (!next) return current;
      const words = !sameWords(current, next);
      if (words) await this.addWords(next);
      const written = await guarded(() => runScript(this.redis, SET_IF, key, raw, JSON.stringify(next)));
      if (written === 1) {
        if (words) {
          const keep = new Set(searchEntries(next));
          const gone = searchEntries(current).filter((e) => !keep.has(e));
          if (gone.length) await guarded(() => this.redis.zrem(this.keys.userSearch, ...gone));
          const now = await this.byId(id);
          if (now) await this.addWords(now);
        }
        return next;
      }
      if (attempt >= MAX_ATTEMPTS) throw new Error(`user ${id}: too many writes at once`);
    }
  }
  async delete(user: UserRecord) {
    const stored = await this.byId(user.id);
    const gone = await guarded(() => this.redis.del(this.keys.user(user.id)));
    await guarded(() => this.redis.zrem(this.keys.usernameIndex, indexEntry(user)));
    const words = [...new Set([...searchEntries(user), ...(stored ? searchEntries(stored) : [])])];
    await guarded(() => this.redis.zrem(this.keys.userSearch, ...words));
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
    if (query) {
      const hits = await this.hits(query);
      if (hits) return pageOfHits(hits, query, after, limit, (ids) => this.readUsers(ids));
    }
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
  private async readUsers(ids: string[]): Promise<(UserRecord | null)[]> {
    const raws = await Promise.all(ids.map((id) => guarded(() => this.redis.get(this.keys.user(id)))));
    return raws.map((raw) => parse<UserRecord>(raw));
  }
  /**
   * The entries whose word begins with query (ZRANGEBYLEX from "[<query>" to "(<query>\xff": no
   * UTF-8 byte is 0xff); null when more than SEARCH_ENTRY_CAP (a broad query).
   */
  private async hits(query: string): Promise<SearchHit[] | null> {
    const prefix = query.slice(0, SEARCH_WORD_MAX);
    const end = Buffer.concat([Buffer.from(`(${prefix}`), Buffer.from([0xff])]);
    const entries = await guarded(() =>
      this.redis.zrangebylex(this.keys.userSearch, `[${prefix}`, end, "LIMIT", 0, SEARCH_ENTRY_CAP + 1),
    );
    if (entries.length > SEARCH_ENTRY_CAP) return null;
    return entries.map((e) => {
      const [, username = "", id = ""] = e.split("\0");
      return { username, id };
    });
  }
  async reindex(user: UserRecord): Promise<void> {
    const stored = await this.byId(user.id);
    if (!stored) return;
    await guarded(() => this.redis.zadd(this.keys.usernameIndex, 0, indexEntry(stored)));
    await this.addWords(stored);
  }
}
