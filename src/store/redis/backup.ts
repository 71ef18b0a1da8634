// Redis's side of backup and restore (store/ports/backup.ts). Redis has no snapshot a client can
// read while writes go on, so a backup is a scan: each item is read atomically with what it
// depends on (one MULTI over keys of one hash tag: a user's two-factor and its recovery codes, a
// grant's mark and refresh chain, an app's history with its trimmed id), and items are written in
// dependency order. An item changed during the backup is saved either as it was or as it became;
// restore goes through the store's own checks, so an item that names something deleted meanwhile
// (a consent to a deleted app) is dropped rather than restored half.
import { Cluster, type Redis } from "ioredis";
import type {
  BackupItem,
  BackupPort,
  ChannelHistoryItem,
  GrantItem,
  GroupRecord,
  InvitationRecord,
  Holdings,
  HistoryItem,
  PasskeyRecord,
  UpstreamLinkRecord,
  StoredUpstreamRecord,
  RefreshRecord,
  SigningKeyRecord,
  TokenRecord,
  TwoFactorRecord,
  UserRecord,
  AppRecord,
} from "../port.js";
import { guarded } from "./guarded.js";
import { globEscape, keysOn, masters } from "./scan.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import { toCustomTokenRecord } from "./realtime.js";
import { channelHistoriesOf, historyOf, restoreChannelHistory, restoreHistory } from "./backup-histories.js";
import { decodeChallenge } from "./challenges.js";
import { RedisAudit } from "./audit.js";
import { luaScript, runScript } from "./scripts.js";

// KEYS[1] the restore horizon. Raises it to Redis's clock now (the clock ids come from); answers it.
const MARK_RESTORED = luaScript(
  1,
  `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local was = tonumber(redis.call('GET', KEYS[1]) or '0')
if was > now then return was end
redis.call('SET', KEYS[1], string.format('%d', now))
return now`,
);

/** The keys of one scan, by kind (each the part inside its hash tag, or the whole key). */
interface Found {
  users: string[];
  emails: string[];
  apps: string[];
  challenges: string[];
  tokens: string[];
  chains: string[];
}

/** "<prefix>:<kind>:{<id>}" → id, for keys that are exactly that. */
function tagged(key: string, head: string): string | undefined {
  return key.startsWith(head) && key.endsWith("}") ? key.slice(head.length, -1) : undefined;
}

export class RedisBackup implements BackupPort {
  /** The audit log, read as the port reads it (store/redis/audit.ts). */
  private readonly auditLog: RedisAudit;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
    private readonly prefix: string,
  ) {
    this.auditLog = new RedisAudit(redis, keys);
  }

  /** The store's keys on one node, a SCAN page at a time. */
  private keysOn(node: Redis): AsyncGenerator<string[]> {
    return keysOn(node, `${globEscape(this.prefix)}:*`);
  }

  private async scan(): Promise<Found> {
    const p = this.prefix;
    const heads = {
      users: `${p}:user:{`,
      emails: `${p}:email:{`,
      apps: `${p}:app:{`,
      challenges: `${p}:ch:{`,
      chains: `${p}:refresh-chain:{`,
    } as const;
    const found: Found = { users: [], emails: [], apps: [], challenges: [], tokens: [], chains: [] };
    const tokenHead = `${p}:token:{`;
    for (const node of masters(this.redis)) {
      for await (const keys of this.keysOn(node)) {
        for (const key of keys) {
          if (key.startsWith(tokenHead)) {
            found.tokens.push(key);
            continue;
          }
          for (const [kind, head] of Object.entries(heads) as [keyof typeof heads, string][]) {
            const id = tagged(key, head);
            if (id !== undefined) found[kind].push(id);
          }
        }
      }
    }
    return found;
  }

  async *items(): AsyncIterable<BackupItem> {
    const found = await this.scan();
    const r = this.redis;
    const k = this.keys;
    const users: UserRecord[] = [];
    for (const id of found.users) {
      const raw = await guarded(() => r.get(k.user(id)));
      if (raw === null) continue;
      const user = JSON.parse(raw) as UserRecord;
      users.push(user);
      yield { kind: "user", user };
    }
    for (const u of users) {
      const data = await guarded(() => r.getBuffer(k.picture(u.id)));
      if (data) yield { kind: "picture", userId: u.id, data: data.toString("base64") };
    }
    for (const email of found.emails)
      for (const userId of await guarded(() => r.smembers(k.emailUsers(email)))) yield { kind: "email", email, userId };
    const apps: AppRecord[] = [];
    for (const clientId of found.apps) {
      const raw = await guarded(() => r.get(k.app(clientId)));
      if (raw === null) continue;
      const app = JSON.parse(raw) as AppRecord;
      apps.push(app);
      yield { kind: "app", app };
    }
    const keys = await guarded(() => r.hgetall(k.signingKeys));
    for (const v of Object.values(keys)) yield { kind: "signing-key", key: JSON.parse(v) as SigningKeyRecord };
    for (const app of apps) {
      const all = await guarded(() => r.hgetall(k.customTokens(app.clientId)));
      for (const [id, raw] of Object.entries(all))
        yield { kind: "custom-token", token: toCustomTokenRecord(app.clientId, id, raw) };
    }
    for (const u of users) {
      const [clients, scopes] = await this.exec<[string[], Record<string, string>]>(
        r.multi().smembers(k.consents(u.id)).hgetall(k.consentScopes(u.id)),
      );
      for (const clientId of clients) {
        const s = scopes[clientId];
        yield {
          kind: "consent",
          userId: u.id,
          clientId,
          scopes: s === undefined ? null : s.split(" ").filter(Boolean),
        };
      }
    }
    for (const u of users) {
      const all = await guarded(() => r.hgetall(k.passkeys(u.id)));
      for (const v of Object.values(all)) yield { kind: "passkey", passkey: JSON.parse(v) as PasskeyRecord };
    }
    for (const raw of Object.values(await guarded(() => r.hgetall(k.upstreams))))
      yield { kind: "upstream", upstream: JSON.parse(raw) as StoredUpstreamRecord };
    for (const u of users) {
      const all = await guarded(() => r.hgetall(k.upstreamLinks(u.id)));
      for (const v of Object.values(all)) yield { kind: "upstream-link", link: JSON.parse(v) as UpstreamLinkRecord };
    }
    for (const u of users) {
      const [raw, recovery] = await this.exec<[string | null, string[]]>(
        r.multi().get(k.twoFactor(u.id)).smembers(k.twoFactorRecovery(u.id)),
      );
      if (raw !== null)
        yield { kind: "two-factor", userId: u.id, record: JSON.parse(raw) as TwoFactorRecord, recovery };
    }
    for (const group of await this.groups()) yield group;
    for (const raw of Object.values(await guarded(() => r.hgetall(k.invitations)))) {
      const invitation = JSON.parse(raw) as InvitationRecord;
      if (invitation.expiresAt > Date.now()) yield { kind: "invitation", invitation };
    }
    for (const key of found.challenges) {
      const [raw, pexp] = await this.exec<[string | null, number]>(
        r.multi().get(k.challenge(key)).pexpiretime(k.challenge(key)),
      );
      if (raw !== null) yield { kind: "challenge", key, record: decodeChallenge(raw), expiresAt: Math.max(0, pexp) };
    }
    yield* await this.grants(found);
    for (const app of apps) {
      const history = await historyOf(this.redis, k, app.clientId);
      if (history) yield history;
    }
    for (const app of apps) yield* channelHistoriesOf(this.redis, k, app.clientId);
    yield* this.audit();
  }

  /** The audit log, oldest first, read a page at a time (the records go on being appended meanwhile). */
  private async *audit(): AsyncGenerator<BackupItem> {
    let from = "-";
    for (;;) {
      const page = await this.auditLog.list({
        order: "oldest",
        limit: 1000,
        ...(from !== "-" ? { cursor: from } : {}),
      });
      for (const record of page.records) yield { kind: "audit", record };
      if (page.next === undefined) return;
      from = page.next;
    }
  }

  /** Each group with its members, read together (one tag: one MULTI). */
  private async groups(): Promise<BackupItem[]> {
    const k = this.keys;
    const names = await guarded(() => this.redis.hkeys(k.groups));
    const out: BackupItem[] = [];
    for (const name of names) {
      const [raw, members] = await this.exec<[string | null, string[]]>(
        this.redis.multi().hget(k.groups, name).smembers(k.groupMembers(name)),
      );
      if (raw !== null) out.push({ kind: "group", group: JSON.parse(raw) as GroupRecord, members });
    }
    return out;
  }

  private async exec<T extends unknown[]>(m: ReturnType<RedisClient["multi"]>): Promise<T> {
    const res = await guarded(() => m.exec());
    if (!res) throw new Error("a backup read was aborted");
    return res.map(([err, v]) => {
      if (err) throw err;
      return v;
    }) as T;
  }

  /** The grants that stand ("ok") with their refresh chains, then the access tokens not revoked. */
  private async grants(found: Found): Promise<BackupItem[]> {
    const r = this.redis;
    const k = this.keys;
    const grants = new Map<string, GrantItem>();
    const marks = new Map<string, string | null>();
    for (const grantId of found.chains) {
      const [mark, markExp, hashes] = await this.exec<[string | null, number, string[]]>(
        r.multi().get(k.codeUsed(grantId)).pexpiretime(k.codeUsed(grantId)).smembers(k.refreshChain(grantId)),
      );
      marks.set(grantId, mark);
      if (mark !== "ok") continue;
      const m = r.multi();
      for (const h of hashes) m.hmget(k.refresh(grantId, h), "rec", "iat", "used");
      const rows = await this.exec<Array<[string | null, string | null, string | null]>>(m);
      const used: string[] = [];
      let live: { hash: string; issuedAt: number; record: RefreshRecord } | undefined;
      rows.forEach(([rec, iat, u], i) => {
        const hash = hashes[i]!; // rows follow hashes
        if (u === "1") used.push(hash);
        else if (u === "0" && rec !== null)
          live = { hash, issuedAt: Number(iat), record: JSON.parse(rec) as RefreshRecord };
      });
      if (!live) continue;
      const { record, hash, issuedAt } = live;
      grants.set(grantId, {
        kind: "grant",
        grantId,
        clientId: record.clientId,
        userId: record.userId,
        scope: record.scope,
        markExpiresAt: Math.max(0, markExp),
        refresh: { record, used, live: { hash, issuedAt } },
      });
    }
    const access: BackupItem[] = [];
    for (const key of found.tokens) {
      const [raw, pexp] = await this.exec<[string | null, number]>(r.multi().get(key).pexpiretime(key));
      if (raw === null) continue;
      const token = JSON.parse(raw) as TokenRecord;
      const grantId = token.codeHash;
      if (!marks.has(grantId)) {
        const [mark, markExp] = await this.exec<[string | null, number]>(
          r.multi().get(k.codeUsed(grantId)).pexpiretime(k.codeUsed(grantId)),
        );
        marks.set(grantId, mark);
        if (mark === "ok")
          grants.set(grantId, {
            kind: "grant",
            grantId,
            clientId: token.clientId,
            userId: token.userId,
            scope: token.scope ?? ["profile"],
            markExpiresAt: Math.max(0, markExp),
          });
      }
      if (marks.get(grantId) === "revoked") continue;
      const hash = key.slice(key.lastIndexOf(":") + 1);
      access.push({ kind: "access-token", hash, token, expiresAt: Math.max(0, pexp) });
    }
    return [...grants.values(), ...access];
  }

  async holdings(): Promise<Holdings> {
    const found = await this.scan();
    const keys = await guarded(() => this.redis.hlen(this.keys.signingKeys));
    return {
      users: found.users.length,
      apps: found.apps.length,
      signingKeys: keys,
      challenges: found.challenges.length,
      groups: await guarded(() => this.redis.hlen(this.keys.groups)),
      upstreams: await guarded(() => this.redis.hlen(this.keys.upstreams)),
    };
  }

  async clear(): Promise<void> {
    // The restore horizon stays too: it is never lowered (a restore raises it right after).
    const keep = new Set([this.keys.dataVersion, this.keys.migrationLock, this.keys.secretCheck, this.keys.restoredAt]);
    for (const node of masters(this.redis)) {
      for await (const keys of this.keysOn(node)) {
        // One UNLINK a key: keys of many hash tags may sit on one Cluster node.
        const gone = keys.filter((key) => !keep.has(key));
        if (gone.length) await guarded(() => Promise.all(gone.map((key) => node.unlink(key))));
      }
    }
  }

  restoreHistory(h: HistoryItem): Promise<void> {
    return restoreHistory(this.redis, this.keys, h);
  }

  restoreChannelHistory(h: ChannelHistoryItem, ttlSeconds: number): Promise<void> {
    return restoreChannelHistory(this.redis, this.keys, h, ttlSeconds);
  }

  async markRestored(): Promise<number> {
    return Number(await guarded(() => runScript(this.redis, MARK_RESTORED, this.keys.restoredAt)));
  }

  async servingNodes(): Promise<number> {
    let n = 0;
    for (const node of this.redis instanceof Cluster ? this.redis.nodes("all") : [this.redis]) {
      const reply = (await guarded(() => node.pubsub("NUMSUB", this.keys.feed))) as [string, number];
      n += Number(reply[1]);
    }
    return n;
  }
}
