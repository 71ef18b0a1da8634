// The embedded store's side of backup and restore (store/ports/backup.ts). A backup reads every
// table in one read transaction (Engine.snapshot), so it is a snapshot: no write of the server
// comes between two of its reads, and none waits for them.
import type {
  AppRecord,
  AuditEntry,
  BackupItem,
  BackupPort,
  ChallengeRecord,
  ChannelHistoryItem,
  CustomTokenRecord,
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
  StoredEvent,
  TokenRecord,
  TwoFactorRecord,
  UserRecord,
} from "../port.js";
import type { Engine, Key, KeyPart, Table } from "./engine.js";
import { RESTORED_AT, restoreHorizon } from "./meta.js";

interface Head {
  last: [number, number];
  maxDeleted: string;
  n: number;
  oldest?: number;
}
interface RefreshEntry {
  record: RefreshRecord;
  issuedAt: number;
  used: boolean;
}

/** A channel message as the embedded store keeps it (embedded/realtime.ts). */
interface StoredMessage {
  d: string;
  t: string;
}

const NEVER = 0;
const str = (k: KeyPart | undefined): string => String(k);

export class EmbeddedBackup implements BackupPort {
  constructor(private readonly engine: Engine) {}

  private t<V>(name: string) {
    return this.engine.table<V>(name);
  }

  async *items(): AsyncIterable<BackupItem> {
    // One read transaction: the snapshot, while the server goes on writing. Items are built in
    // memory (a backup of a one-node store fits).
    const items = this.engine.snapshot(() => this.snapshot());
    yield* items;
  }

  private snapshot(): BackupItem[] {
    const out: BackupItem[] = [];
    for (const { value } of this.t<UserRecord>("users").range([])) out.push({ kind: "user", user: value });
    for (const { key, value } of this.t<Uint8Array>("pictures").range([]))
      out.push({ kind: "picture", userId: str(key[0]), data: Buffer.from(value).toString("base64") });
    for (const { key } of this.t<1>("users-by-email").range([]))
      out.push({ kind: "email", email: str(key[0]), userId: str(key[1]) });
    for (const { value } of this.t<AppRecord>("apps").range([])) out.push({ kind: "app", app: value });
    for (const { value } of this.t<SigningKeyRecord>("signing-keys").range([]))
      out.push({ kind: "signing-key", key: value });
    for (const { value } of this.t<CustomTokenRecord>("custom-tokens").range([]))
      out.push({ kind: "custom-token", token: value });
    const scopes = this.t<string[]>("consent-scopes");
    for (const { key } of this.t<1>("consents").range([])) {
      const [userId, clientId] = [str(key[0]), str(key[1])];
      out.push({ kind: "consent", userId, clientId, scopes: scopes.get([userId, clientId]) ?? null });
    }
    for (const { value } of this.t<PasskeyRecord>("passkeys").range([])) out.push({ kind: "passkey", passkey: value });
    for (const { value } of this.t<StoredUpstreamRecord>("upstream-providers").range([]))
      out.push({ kind: "upstream", upstream: value });
    for (const { value } of this.t<UpstreamLinkRecord>("upstream-links").range([]))
      out.push({ kind: "upstream-link", link: value });
    const recovery = this.t<1>("recovery-codes");
    for (const { key, value } of this.t<TwoFactorRecord>("two-factor").range([])) {
      const userId = str(key[0]);
      const codes = recovery.range([userId]).map((e) => str(e.key[1]));
      out.push({ kind: "two-factor", userId, record: value, recovery: codes });
    }
    const members = this.t<1>("group-members");
    for (const { key, value } of this.t<GroupRecord>("groups").range([])) {
      const ids = members.range([str(key[0])]).map((e) => str(e.key[1]));
      out.push({ kind: "group", group: value, members: ids });
    }
    for (const { value } of this.t<InvitationRecord>("invitations").range([]))
      out.push({ kind: "invitation", invitation: value });
    const challenges = this.t<ChallengeRecord>("challenges");
    for (const { key, value } of challenges.range([]))
      out.push({ kind: "challenge", key: str(key[0]), record: value, expiresAt: challenges.expiresAt(key) ?? NEVER });
    out.push(...this.grants());
    out.push(...this.histories());
    out.push(...this.channelHistories());
    for (const { key, value } of this.t<AuditEntry>("audit").range([]))
      out.push({ kind: "audit", record: { id: `${str(key[0])}-${str(key[1])}`, ...value } });
    return out;
  }

  /** The grants that stand ("ok"), then their access tokens (those of revoked grants are left out). */
  private grants(): BackupItem[] {
    const marks = this.t<"ok" | "revoked">("grant-marks");
    const refresh = this.t<RefreshEntry>("refresh-tokens");
    const chains = this.t<1>("refresh-chains");
    const tokens = this.t<TokenRecord>("access-tokens");
    const grants = new Map<string, GrantItem>();
    for (const { key, value } of marks.range([])) {
      const grantId = str(key[0]);
      if (value !== "ok") continue;
      const hashes = chains.range([grantId]).map((e) => str(e.key[1]));
      const entries = hashes.map((h) => ({ hash: h, entry: refresh.get(h) })).filter((e) => e.entry !== undefined);
      const live = entries.find((e) => !e.entry!.used); // filtered: defined
      if (!live) continue;
      const record = live.entry!.record;
      grants.set(grantId, {
        kind: "grant",
        grantId,
        clientId: record.clientId,
        userId: record.userId,
        scope: record.scope,
        markExpiresAt: marks.expiresAt(key) ?? NEVER,
        refresh: {
          record,
          used: entries.filter((e) => e.entry!.used).map((e) => e.hash),
          live: { hash: live.hash, issuedAt: live.entry!.issuedAt },
        },
      });
    }
    const access: BackupItem[] = [];
    for (const { key, value } of tokens.range([])) {
      const grantId = value.codeHash;
      const mark = marks.get(grantId);
      if (mark === "revoked") continue;
      if (mark === "ok" && !grants.has(grantId))
        grants.set(grantId, {
          kind: "grant",
          grantId,
          clientId: value.clientId,
          userId: value.userId,
          scope: value.scope ?? ["profile"],
          markExpiresAt: marks.expiresAt(grantId) ?? NEVER,
        });
      access.push({ kind: "access-token", hash: str(key[0]), token: value, expiresAt: tokens.expiresAt(key) ?? NEVER });
    }
    return [...grants.values(), ...access];
  }

  private histories(): HistoryItem[] {
    const events = this.t<Omit<StoredEvent, "id">>("events");
    const out: HistoryItem[] = [];
    for (const { key, value: h } of this.t<Head>("event-heads").range([])) {
      const app = str(key[0]);
      out.push({
        kind: "history",
        app,
        events: events.range([app]).map((e) => ({ id: `${e.key[1]}-${e.key[2]}`, ...e.value })),
        last: `${h.last[0]}-${h.last[1]}`,
        cut: h.maxDeleted,
      });
    }
    return out;
  }

  /** Each (app, channel) history, by app and channel name (the heads' key order). */
  private channelHistories(): ChannelHistoryItem[] {
    const messages = this.t<StoredMessage>("channel-messages");
    const out: ChannelHistoryItem[] = [];
    for (const { key, value: h } of this.t<Head>("channel-heads").range([])) {
      const [app, channel] = [str(key[0]), str(key[1])];
      out.push({
        kind: "channel-history",
        app,
        channel,
        messages: messages
          .range([app, channel])
          .map((e) => ({ id: `${e.key[2]}-${e.key[3]}`, data: e.value.d, at: e.value.t })),
        last: `${h.last[0]}-${h.last[1]}`,
        cut: h.maxDeleted,
      });
    }
    return out;
  }

  async holdings(): Promise<Holdings> {
    return {
      users: this.t("users").count([]),
      apps: this.t("apps").count([]),
      signingKeys: this.t("signing-keys").count([]),
      challenges: this.t("challenges").count([]),
      groups: this.t("groups").count([]),
      upstreams: this.t("upstream-providers").count([]),
    };
  }

  async clear(): Promise<void> {
    this.t("notices"); // opened, so that it is cleared too
    await this.engine.write(() => {
      for (const name of this.engine.tableNames()) {
        if (name === "meta") continue; // the data version and the SECRET's check stay
        const table = this.t(name);
        for (const { key } of table.range([])) table.remove(key);
      }
    });
  }

  async restoreHistory(h: HistoryItem): Promise<void> {
    const entries = h.events.map(({ id, ...e }) => ({ id, value: e }));
    await this.writeHistory(
      this.t<Omit<StoredEvent, "id">>("events"),
      this.t<Head>("event-heads"),
      [h.app],
      h.app,
      entries,
      h,
    );
  }

  /**
   * A channel with the age bound a publish would give its head (ttlSeconds: HISTORY_TTL), so the
   * sweep trims and forgets it as any other (embedded/channels.ts); one already past forgetting is
   * not written, and the app's horizon takes its last message's time.
   */
  async restoreChannelHistory(h: ChannelHistoryItem, ttlSeconds: number): Promise<void> {
    const lastMs = Number(h.last.split("-")[0]);
    if (lastMs + 2 * ttlSeconds * 1000 + 1000 <= Date.now()) {
      const forgotten = this.t<number>("channel-forgotten");
      await this.engine.write(() => {
        if ((forgotten.get(h.app) ?? 0) < lastMs) forgotten.put(h.app, lastMs);
      });
      return;
    }
    const entries = h.messages.map((m) => ({ id: m.id, value: { d: m.data, t: m.at } }));
    const prefix = [h.app, h.channel];
    await this.writeHistory(
      this.t<StoredMessage>("channel-messages"),
      this.t<Head>("channel-heads"),
      prefix,
      prefix,
      entries,
      h,
      ttlSeconds * 1000,
    );
  }

  /**
   * One history as it was, replacing any: its entries under [...prefix, ms, seq], and its head (the
   * newest id issued, the newest trimmed, the count, the oldest time), as embedded/realtime.ts keeps them.
   */
  private async writeHistory<V>(
    entries: Table<V>,
    heads: Table<Head>,
    prefix: KeyPart[],
    headKey: Key,
    list: Array<{ id: string; value: V }>,
    h: { last: string; cut: string },
    /** A channel's age bound (Head.ttl), for the sweep. */
    ttl?: number,
  ): Promise<void> {
    const [lastMs, lastSeq] = h.last.split("-").map(Number) as [number, number];
    await this.engine.write(() => {
      for (const { key } of entries.range(prefix)) entries.remove(key);
      for (const { id, value } of list) {
        const [ms, seq] = id.split("-").map(Number) as [number, number];
        entries.put([...prefix, ms, seq], value);
      }
      const first = list[0];
      heads.put(headKey, {
        last: [lastMs, lastSeq],
        maxDeleted: h.cut,
        n: list.length,
        ...(first ? { oldest: Number(first.id.split("-")[0]) } : {}),
        ...(ttl !== undefined ? { ttl } : {}),
      });
    });
  }

  markRestored(): Promise<number> {
    return this.engine.write(() => {
      const horizon = Math.max(restoreHorizon(this.engine), Date.now());
      this.t<unknown>("meta").put(RESTORED_AT, horizon);
      return horizon;
    });
  }

  async servingNodes(): Promise<number> {
    // A restore takes DATA_DIR's lock (src/cli/backup.ts): a running server would have refused it.
    return 0;
  }
}
