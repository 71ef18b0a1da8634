// Redis side of challenges. A solve attempt is decided by one Lua script — limits, compare, count
// and, on an owned challenge, the event — so concurrent attempts cannot overshoot a limit, right
// answers never touch a counter, and an acknowledged attempt is always in the app's history.
//
// Redis Cluster runs a script only over keys of one hash slot. The challenge is stored under its
// key's tag, and an app's history under the app's tag, so an owned challenge's solve state (its
// counters and a copy of its answer hash) lives under the app's tag, beside the history:
// - anonymous challenge: one script over the key's tag (the record and the counters);
// - owned challenge: one script over the app's tag. The owner of a key never changes, so a node
//   remembers it; the first attempt a node sees on an owned key first reads the record (the same
//   script over the key's tag, which then decides nothing) and passes its answer hash and TTL to
//   the second script, which copies them when the copy is missing.
import type { Keyspace } from "./keys.js";
import type { ChallengeRecord, ChallengeStore, SolveAttempt, SolveResult, SolveRules } from "../port.js";
import type { RedisClient } from "./redis-client.js";
import { guarded } from "./guarded.js";
import { APPEND_EVENT } from "./realtime.js";
import { ReplicaWait } from "./replica-wait.js";

// decide(): nil and the wait in ms when wrong answers have already reached a limit; else whether
// the answer is right, after counting it when it is wrong. ARGV from a: perAddress,
// perAddressWindowMs, perKey, perKeyWindowMs.
//
// The compare is Lua string equality of two hex HMAC-SHA256 digests (keyed with the server's
// secret, over the key and the NFC-normalised answer). Its timing can only tell an attacker how
// many leading characters of their digest match the stored one; without the secret they cannot
// choose an answer whose digest shares a longer prefix, so that learns nothing about the answer,
// and the limits bound the tries anyway. A constant-time compare in Node would need the stored
// digest outside the script, and then the count could no longer be decided in the same step.
const DECIDE = `
local function waitFor(counter, limit, windowMs)
  local n = tonumber(redis.call('GET', counter) or '0')
  if n < tonumber(limit) then return 0 end
  local ttl = redis.call('PTTL', counter)
  if ttl < 0 then
    redis.call('PEXPIRE', counter, windowMs)
    ttl = tonumber(windowMs)
  end
  return ttl
end
local function countWrong(counter, windowMs)
  if redis.call('INCR', counter) == 1 then redis.call('PEXPIRE', counter, windowMs) end
end
local function decide(perKey, perAddress, stored, given, a)
  local wait = math.max(waitFor(perAddress, ARGV[a], ARGV[a + 1]), waitFor(perKey, ARGV[a + 2], ARGV[a + 3]))
  if wait > 0 then return nil, wait end
  if stored == given then return true end
  countWrong(perAddress, ARGV[a + 1])
  countWrong(perKey, ARGV[a + 3])
  return false
end`;

// KEYS: challenge, wrongPerKey, wrongPerAddress (the key's tag). ARGV: answerHash, then the four
// limits. An owned challenge is not decided here: {'owned', app, answer hash, PTTL}.
const SOLVE = `${DECIDE}
local raw = redis.call('GET', KEYS[1])
if not raw then return {'unknown'} end
local rec = cjson.decode(raw)
if type(rec.o) == 'string' then return {'owned', rec.o, rec.h, redis.call('PTTL', KEYS[1])} end
local correct, wait = decide(KEYS[2], KEYS[3], rec.h, ARGV[1], 2)
if wait then return {'limited', wait} end
return {'counted', correct and 1 or 0}`;

// KEYS: ownedAnswer, wrongPerKey, wrongPerAddress, stream, cut, oldest (the app's tag). ARGV: answerHash,
// the four limits, then the record's answer hash and PTTL to copy when the copy is missing ('' when
// not read: the caller then reads the record and comes back), maxEvents, ttlMs, key, at, channel, app.
const SOLVE_OWNED = `${DECIDE}
${APPEND_EVENT}
local stored = redis.call('GET', KEYS[1])
if not stored then
  if ARGV[6] == '' then return {'missing'} end
  stored = ARGV[6]
  local pttl = tonumber(ARGV[7])
  if pttl > 0 then redis.call('SET', KEYS[1], stored, 'PX', pttl)
  elseif pttl == -1 then redis.call('SET', KEYS[1], stored)
  else return {'unknown'} end
end
local correct, wait = decide(KEYS[2], KEYS[3], stored, ARGV[1], 2)
if wait then return {'limited', wait} end
local c = correct and '1' or '0'
return {'counted', c, appendEvent(KEYS[4], KEYS[5], KEYS[6], ARGV[8], ARGV[9], ARGV[10], c, ARGV[11], ARGV[12], ARGV[13])}`;

type Reply = [string, ...Array<string | number>];
type Scripted = RedisClient & {
  sigilSolve(...args: Array<string | number>): Promise<Reply>;
  sigilSolveOwned(...args: Array<string | number>): Promise<Reply>;
};

interface StoredChallenge {
  q: string;
  h: string;
  o?: string;
  c: number;
}

/** A challenge's record from its stored form (also read by a backup, redis/backup.ts). */
export function decodeChallenge(raw: string): ChallengeRecord {
  const d = JSON.parse(raw) as StoredChallenge;
  const rec: ChallengeRecord = { question: d.q, answerHash: d.h, createdAt: d.c };
  if (d.o !== undefined) rec.owner = d.o;
  return rec;
}

/** Owners remembered per node (a key's owner never changes); oldest forgotten first. */
const MAX_OWNERS = 10_000;

export class RedisChallenges implements ChallengeStore {
  private readonly redis: Scripted;
  private readonly owners = new Map<string, string>();

  constructor(
    redis: RedisClient,
    private readonly keys: Keyspace,
    /** Creating and solving are acknowledged writes (REDIS_WAIT_REPLICAS). */
    private readonly acked: ReplicaWait = new ReplicaWait(undefined),
  ) {
    this.redis = redis as Scripted;
    for (const c of [redis, ...acked.writers]) {
      if (typeof (c as Scripted).sigilSolve !== "function") {
        c.defineCommand("sigilSolve", { numberOfKeys: 3, lua: SOLVE });
        c.defineCommand("sigilSolveOwned", { numberOfKeys: 6, lua: SOLVE_OWNED });
      }
    }
  }

  async create(key: string, r: ChallengeRecord, ttlSeconds: number): Promise<boolean> {
    const doc: StoredChallenge = { q: r.question, h: r.answerHash, c: r.createdAt };
    if (r.owner !== undefined) doc.o = r.owner;
    const res = await this.acked.write(this.redis, (r) =>
      r.set(this.keys.challenge(key), JSON.stringify(doc), "EX", ttlSeconds, "NX"),
    );
    return res === "OK";
  }

  async get(key: string): Promise<ChallengeRecord | null> {
    const raw = await guarded(() => this.redis.get(this.keys.challenge(key)));
    if (raw === null) return null;
    return decodeChallenge(raw);
  }

  async solve(a: SolveAttempt, rules: SolveRules): Promise<SolveResult> {
    const l = rules.limits;
    const limits = [l.perAddress, l.perAddressWindow * 1000, l.perKey, l.perKeyWindow * 1000];
    const known = this.owners.get(a.key);
    if (known !== undefined) {
      const r = await this.solveOwned(known, a, rules, limits, ["", ""]);
      if (r) return r;
      this.owners.delete(a.key);
    }
    const k = this.keys;
    const reply = await this.acked.write(this.redis, (r) =>
      r.sigilSolve(
        k.challenge(a.key),
        k.wrongPerKey(a.key, a.key),
        k.wrongPerAddress(a.key, a.key, a.address),
        a.answerHash,
        ...limits,
      ),
    );
    if (reply[0] !== "owned") return toResult(reply);
    const [, app, hash, pttl] = reply as [string, string, string, number];
    this.remember(a.key, app);
    return (await this.solveOwned(app, a, rules, limits, [hash, pttl])) ?? { status: "unknown" };
  }

  /** The attempt on an owned challenge; undefined when the answer's copy is missing and was not given. */
  private async solveOwned(
    app: string,
    a: SolveAttempt,
    rules: SolveRules,
    limits: number[],
    copy: [string, string | number],
  ) {
    const k = this.keys;
    const ttlMs = Math.round(rules.history.ttlSeconds * 1000);
    const reply = await this.acked.write(this.redis, (r) =>
      r.sigilSolveOwned(
        k.ownedAnswer(app, a.key),
        k.wrongPerKey(app, a.key),
        k.wrongPerAddress(app, a.key, a.address),
        k.events(app),
        k.eventsCut(app),
        k.eventsOldest(app),
        a.answerHash,
        ...limits,
        ...copy,
        rules.history.maxEvents,
        ttlMs,
        a.key,
        a.at,
        k.feed,
        app,
      ),
    );
    if (reply[0] === "missing") return undefined;
    const r = toResult(reply);
    if (r.status === "counted") r.event = { app, id: String(reply[2]), key: a.key, correct: r.correct, at: a.at };
    return r;
  }

  private remember(key: string, app: string): void {
    if (this.owners.size >= MAX_OWNERS) this.owners.delete(this.owners.keys().next().value!); // size > 0
    this.owners.set(key, app);
  }
}

function toResult(reply: Reply): SolveResult {
  switch (reply[0]) {
    case "limited":
      return { status: "limited", retryAfterMs: Number(reply[1]) };
    case "counted":
      return { status: "counted", correct: String(reply[1]) === "1" };
    default:
      return { status: "unknown" };
  }
}
