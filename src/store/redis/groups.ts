// The Redis store's groups (store/ports/groups.ts): a hash of the records by name, a set of member
// ids per group and a set of group names per user, all under one hash tag ({groups}, keys.ts), so
// that every change to both sides is one script on one shard (Cluster-safe): the two never disagree.
import { luaScript, runScript } from "./scripts.js";
import type { GroupRecord, GroupStore, GroupSummary } from "../port.js";
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";

// KEYS groups, the group's members, the user's groups; ARGV name, user id.
// -1: no such group; 0: already a member; 1: added.
const ADD = luaScript(
  3,
  `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return -1 end
if redis.call('SADD', KEYS[2], ARGV[2]) == 0 then return 0 end
redis.call('SADD', KEYS[3], ARGV[1])
return 1`,
);

// Same keys and arguments. -1: no such group; 0: not a member; 1: removed.
const REMOVE = luaScript(
  3,
  `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return -1 end
redis.call('SREM', KEYS[3], ARGV[1])
return redis.call('SREM', KEYS[2], ARGV[2])`,
);

// KEYS groups, the group's members; ARGV name, the prefix of the users' groups keys (same tag).
// Deletes the record, and the group from each member's set. 1 when there was a group.
const DELETE = luaScript(
  2,
  `
local existed = redis.call('HDEL', KEYS[1], ARGV[1])
for _, id in ipairs(redis.call('SMEMBERS', KEYS[2])) do redis.call('SREM', ARGV[2] .. id, ARGV[1]) end
redis.call('DEL', KEYS[2])
return existed`,
);

// KEYS the user's groups; ARGV user id, the prefix of the groups' members keys (same tag).
const REMOVE_USER = luaScript(
  1,
  `
for _, name in ipairs(redis.call('SMEMBERS', KEYS[1])) do redis.call('SREM', ARGV[2] .. name, ARGV[1]) end
redis.call('DEL', KEYS[1])
return 1`,
);

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export class RedisGroups implements GroupStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}

  async create(group: GroupRecord) {
    return (await guarded(() => this.redis.hsetnx(this.keys.groups, group.name, JSON.stringify(group)))) === 1;
  }
  async get(name: string) {
    const raw = await guarded(() => this.redis.hget(this.keys.groups, name));
    return raw ? (JSON.parse(raw) as GroupRecord) : null;
  }
  async delete(name: string) {
    const k = this.keys;
    const n = await guarded(() =>
      runScript(this.redis, DELETE, k.groups, k.groupMembers(name), name, k.userGroups("")),
    );
    return n === 1;
  }
  async addMember(name: string, userId: string) {
    const k = this.keys;
    const r = await guarded(() =>
      runScript(this.redis, ADD, k.groups, k.groupMembers(name), k.userGroups(userId), name, userId),
    );
    return r === 1 ? "added" : r === 0 ? "already" : "no-group";
  }
  async removeMember(name: string, userId: string) {
    const k = this.keys;
    const r = await guarded(() =>
      runScript(this.redis, REMOVE, k.groups, k.groupMembers(name), k.userGroups(userId), name, userId),
    );
    return r === 1 ? "removed" : r === 0 ? "not-member" : "no-group";
  }
  async list(): Promise<GroupSummary[]> {
    const all = await guarded(() => this.redis.hgetall(this.keys.groups));
    const groups = Object.values(all)
      .map((v) => JSON.parse(v) as GroupRecord)
      .sort((a, b) => byName(a.name, b.name));
    const counts = await guarded(() =>
      Promise.all(groups.map((g) => this.redis.scard(this.keys.groupMembers(g.name)))),
    );
    return groups.map((g, i) => ({ ...g, members: counts[i]! })); // counts follow groups
  }
  async members(name: string) {
    const k = this.keys;
    // One shard (one tag): the record and its members read together.
    const res = await guarded(() => this.redis.multi().hexists(k.groups, name).smembers(k.groupMembers(name)).exec());
    if (!res) throw new Error("a read of a group was aborted");
    const [[e1, exists], [e2, ids]] = res as [[Error | null, number], [Error | null, string[]]];
    if (e1 || e2) throw e1 ?? e2;
    return exists === 1 ? ids.sort(byName) : null;
  }
  async groupsOf(userId: string) {
    return (await guarded(() => this.redis.smembers(this.keys.userGroups(userId)))).sort(byName);
  }
  async removeUser(userId: string) {
    const k = this.keys;
    await guarded(() => runScript(this.redis, REMOVE_USER, k.userGroups(userId), userId, k.groupMembers("")));
  }
}
