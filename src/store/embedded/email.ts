// The embedded store's part for email: single-use links (with an index by user) and the index of
// users by address.
import type { EmailStore, MailLinkRecord } from "../port.js";
import type { Engine } from "./engine.js";

export class EmbeddedEmail implements EmailStore {
  private readonly links;
  private readonly linksByUser;
  private readonly byEmail;

  constructor(private readonly engine: Engine) {
    this.links = engine.table<MailLinkRecord>("mail-links");
    this.linksByUser = engine.table<1>("mail-links-by-user");
    this.byEmail = engine.table<1>("users-by-email");
  }

  async saveLink(tokenHash: string, record: MailLinkRecord, ttlSeconds: number) {
    const until = Date.now() + ttlSeconds * 1000;
    await this.engine.write(() => {
      this.links.put(tokenHash, record, until);
      this.linksByUser.put([record.userId, tokenHash], 1, until);
    });
  }
  async removeLinksForUser(userId: string) {
    await this.engine.write(() => {
      for (const { key } of this.linksByUser.range([userId])) {
        this.links.remove(key[1]!); // [user, hash]
        this.linksByUser.remove(key);
      }
    });
  }
  async peekLink(tokenHash: string) {
    return this.links.get(tokenHash) ?? null;
  }
  takeLink(tokenHash: string) {
    return this.engine.write(() => {
      const r = this.links.get(tokenHash);
      if (!r) return null;
      this.links.remove(tokenHash);
      this.linksByUser.remove([r.userId, tokenHash]);
      return r;
    });
  }
  async indexEmail(email: string, userId: string) {
    await this.engine.write(() => this.byEmail.put([email, userId], 1));
  }
  async unindexEmail(email: string, userId: string) {
    await this.engine.write(() => this.byEmail.remove([email, userId]));
  }
  async usersByEmail(email: string) {
    return this.byEmail.range([email]).map((e) => e.key[1] as string); // [email, user]
  }
}
