// The embedded store's upstream links: by identity, with an index by user, in tables.
import { identityKey, oldestFirst, type UnlessLast, type UpstreamLinkRecord, type UpstreamLinkStore } from "../port.js";
import type { Engine } from "./engine.js";

export class EmbeddedUpstreamLinks implements UpstreamLinkStore {
  /** identityKey → link. */
  private readonly byIdentityKey;
  /** [user id, identityKey]. */
  private readonly byUser;
  /** The passkeys' index by user (passkeys.ts): another way in, counted by unlinkUnlessLast. */
  private readonly passkeysByUser;

  constructor(private readonly engine: Engine) {
    this.byIdentityKey = engine.table<UpstreamLinkRecord>("upstream-links");
    this.byUser = engine.table<1>("upstream-links-by-user");
    this.passkeysByUser = engine.table<1>("passkeys-by-user");
  }

  link(l: UpstreamLinkRecord) {
    const key = identityKey(l.issuer, l.subject);
    return this.engine.write(() => {
      if (this.byIdentityKey.has(key)) return false;
      this.byIdentityKey.put(key, l);
      this.byUser.put([l.userId, key], 1);
      return true;
    });
  }
  async byIdentity(issuer: string, subject: string) {
    return this.byIdentityKey.get(identityKey(issuer, subject)) ?? null;
  }
  async listForUser(userId: string) {
    return this.byUser
      .range([userId])
      .map((e) => this.byIdentityKey.get(e.key[1]!))
      .filter((l): l is UpstreamLinkRecord => l?.userId === userId)
      .sort(oldestFirst);
  }
  async usersOf(upstream: string) {
    const ids = this.byIdentityKey
      .range([])
      .filter((e) => e.value.upstream === upstream)
      .map((e) => e.value.userId);
    return [...new Set(ids)];
  }
  unlink(userId: string, issuer: string, subject: string) {
    const key = identityKey(issuer, subject);
    return this.engine.write(() => {
      if (this.byIdentityKey.get(key)?.userId !== userId) return false;
      this.byIdentityKey.remove(key);
      this.byUser.remove([userId, key]);
      return true;
    });
  }
  unlinkUnlessLast(userId: string, issuer: string, subject: string) {
    const key = identityKey(issuer, subject);
    return this.engine.write((): UnlessLast => {
      if (this.byIdentityKey.get(key)?.userId !== userId) return "unknown";
      if (this.byUser.count([userId]) + this.passkeysByUser.count([userId]) <= 1) return "last";
      this.byIdentityKey.remove(key);
      this.byUser.remove([userId, key]);
      return "removed";
    });
  }
  removeForUser(userId: string) {
    return this.engine.write(() => {
      let n = 0;
      for (const { key } of this.byUser.range([userId])) {
        if (this.byIdentityKey.get(key[1]!)?.userId === userId && this.byIdentityKey.remove(key[1]!)) n++;
        this.byUser.remove(key);
      }
      return n;
    });
  }
}
