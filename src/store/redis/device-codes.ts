// The Redis store's device authorization requests (store/ports/device-codes.ts): a hash per
// request (keys.ts deviceRequest), decided and polled by one script each, and a string per user
// code naming it. The two keys have their own tags (they may sit on two shards of a Cluster): the
// user code is read first, then the request's script decides, so only one decision ever lands.
import type { DeviceApproval, DeviceCodeRecord, DeviceCodeStore, DevicePoll } from "../port.js";
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import { luaScript, runScript } from "./scripts.js";

// KEYS request; ARGV new state, approval JSON ("" for none), now. Only while pending and live:
// then the request's time to live (ms), else 0.
const DECIDE = luaScript(
  1,
  `
local f = redis.call('HMGET', KEYS[1], 's', 'e')
if f[1] ~= 'pending' or tonumber(f[2]) <= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], 's', ARGV[1], 'a', ARGV[2])
return math.max(redis.call('PTTL', KEYS[1]), 1)`,
);

// KEYS request; ARGV now, client id. RFC 8628 §3.5: a pending request polled sooner than its interval after
// the last poll answers slow_down and its interval grows by 5 s; an approved one is taken once.
const POLL = luaScript(
  1,
  `
local f = redis.call('HMGET', KEYS[1], 's', 'e', 'i', 'p', 'c')
if not f[1] or f[5] ~= ARGV[2] then return {'unknown'} end
if f[1] == 'taken' then return {'taken'} end
local now = tonumber(ARGV[1])
if now >= tonumber(f[2]) then return {'expired'} end
if f[1] == 'pending' then
  local i = tonumber(f[3])
  if f[4] and now - tonumber(f[4]) < i * 1000 then
    i = i + 5
    redis.call('HSET', KEYS[1], 'i', tostring(i), 'p', ARGV[1])
    return {'slow_down', tostring(i)}
  end
  redis.call('HSET', KEYS[1], 'p', ARGV[1])
  return {'pending'}
end
if f[1] == 'denied' then return {'denied'} end
local out = {'approved', redis.call('HGET', KEYS[1], 'r'), redis.call('HGET', KEYS[1], 'a')}
-- Taken: who allowed it is the grant's business from here on, not this record's.
redis.call('HSET', KEYS[1], 's', 'taken')
redis.call('HDEL', KEYS[1], 'a')
return out`,
);

// KEYS a set; ARGV member, ms: adds the member and keeps the set at least ms longer.
const ADD_KEEPING = luaScript(
  1,
  `
redis.call('SADD', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`,
);

export class RedisDeviceCodes implements DeviceCodeStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}

  async create(deviceHash: string, userCodeHash: string, record: DeviceCodeRecord, interval: number, keep: number) {
    const request = this.keys.deviceRequest(deviceHash);
    const claimed = await guarded(() =>
      this.redis.set(this.keys.deviceUserCode(userCodeHash), deviceHash, "PXAT", record.expiresAt, "NX"),
    );
    if (claimed !== "OK") return false;
    await guarded(() =>
      this.redis
        .multi()
        .hset(request, {
          r: JSON.stringify(record),
          c: record.clientId,
          e: String(record.expiresAt),
          s: "pending",
          i: String(interval),
        })
        .pexpire(request, keep * 1000)
        .exec(),
    );
    await this.addKeeping(this.keys.devicesOfApp(record.clientId), deviceHash, keep * 1000);
    return true;
  }

  private async deviceHashOf(userCodeHash: string): Promise<string | null> {
    return guarded(() => this.redis.get(this.keys.deviceUserCode(userCodeHash)));
  }

  async pending(userCodeHash: string) {
    const deviceHash = await this.deviceHashOf(userCodeHash);
    if (!deviceHash) return null;
    const [r, s] = await guarded(() => this.redis.hmget(this.keys.deviceRequest(deviceHash), "r", "s"));
    if (!r || s !== "pending") return null;
    const record = JSON.parse(r) as DeviceCodeRecord;
    return record.expiresAt > Date.now() ? { deviceHash, record } : null;
  }

  async decide(userCodeHash: string, approval: DeviceApproval | null) {
    const deviceHash = await this.deviceHashOf(userCodeHash);
    if (!deviceHash) return false;
    const state = approval ? "approved" : "denied";
    const done = await guarded(() =>
      runScript(
        this.redis,
        DECIDE,
        this.keys.deviceRequest(deviceHash),
        state,
        approval ? JSON.stringify(approval) : "",
        String(Date.now()),
      ),
    );
    if (typeof done !== "number" || done <= 0) return false;
    await guarded(() => this.redis.del(this.keys.deviceUserCode(userCodeHash)));
    if (approval) await this.addKeeping(this.keys.devicesApprovedBy(approval.userId), deviceHash, done);
    return true;
  }

  async poll(deviceHash: string, clientId: string, now: number): Promise<DevicePoll> {
    const out = (await guarded(() =>
      runScript(this.redis, POLL, this.keys.deviceRequest(deviceHash), String(now), clientId),
    )) as string[];
    switch (out[0]) {
      case "slow_down":
        return { kind: "slow_down", interval: Number(out[1]) };
      case "approved": {
        const approval = JSON.parse(out[2]!) as DeviceApproval;
        // Taken: it names the user no more (the set is only for an account's deletion).
        await guarded(() => this.redis.srem(this.keys.devicesApprovedBy(approval.userId), deviceHash));
        return { kind: "approved", record: JSON.parse(out[1]!) as DeviceCodeRecord, approval };
      }
      case "expired":
      case "pending":
      case "denied":
      case "taken":
        return { kind: out[0] };
      default:
        return { kind: "unknown" };
    }
  }

  private async addKeeping(set: string, member: string, ms: number): Promise<void> {
    await guarded(() => runScript(this.redis, ADD_KEEPING, set, member, String(ms)));
  }

  async forgetUser(userId: string) {
    const set = this.keys.devicesApprovedBy(userId);
    const hashes = await guarded(() => this.redis.smembers(set));
    // One key each (a Cluster spreads them over its shards).
    await guarded(() => Promise.all(hashes.map((h) => this.redis.del(this.keys.deviceRequest(h)))));
    await guarded(() => this.redis.del(set));
  }

  async forgetApp(clientId: string) {
    const set = this.keys.devicesOfApp(clientId);
    const hashes = await guarded(() => this.redis.smembers(set));
    await guarded(() =>
      Promise.all(
        hashes.map(async (h) => {
          const request = this.keys.deviceRequest(h);
          const [userCodeHash, approval] = await this.redis.hmget(request, "uc", "a");
          if (userCodeHash) await this.redis.del(this.keys.deviceUserCode(userCodeHash));
          if (approval) {
            const { userId } = JSON.parse(approval) as DeviceApproval;
            await this.redis.srem(this.keys.devicesApprovedBy(userId), h);
          }
          await this.redis.del(request);
        }),
      ),
    );
    await guarded(() => this.redis.del(set));
  }
}
