// The embedded store's upstream links: by identity, with an index by user, in tables.
import { identityKey, type UpstreamLinkRecord, type UpstreamLinkStore } from "../port.js";
import type { Engine } from "./engine.js";

export class EmbeddedUpstreamLinks implements UpstreamLinkStore {
  /** identityKey → link. */
  private readonly byIdentityKey;
  /** [user id, identityKey]. */
  private readonly byUser;

  constructor(private readonly engine: Engine) {
    this.byIdentityKey = engine.table<UpstreamLinkRecord>("upstream-links");
    this.byUser = engine.table<1>("upstream-links-by-user");
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
      .sort((a, b) => a.linkedAt - b.linkedAt);
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
