// The embedded store's part for email: single-use links and the index of users by address.
import type { EmailStore, MailLinkRecord } from "../port.js";
import { ExpiringMap } from "./expiring-map.js";

export class MemoryEmail implements EmailStore {
  readonly links = new ExpiringMap<MailLinkRecord>();
  private readonly byEmail = new Map<string, Set<string>>();

  async saveLink(tokenHash: string, record: MailLinkRecord, ttlSeconds: number) {
    this.links.set(tokenHash, structuredClone(record), ttlSeconds * 1000);
  }
  async removeLinksForUser(userId: string) {
    this.links.deleteWhere((r) => r.userId === userId);
  }
  async peekLink(tokenHash: string) {
    const r = this.links.get(tokenHash);
    return r ? structuredClone(r) : null;
  }
  async takeLink(tokenHash: string) {
    // One synchronous step: no other call runs between the read and the delete.
    const r = this.links.get(tokenHash);
    if (!r) return null;
    this.links.delete(tokenHash);
    return r;
  }
  async indexEmail(email: string, userId: string) {
    let set = this.byEmail.get(email);
    if (!set) this.byEmail.set(email, (set = new Set()));
    set.add(userId);
  }
  async unindexEmail(email: string, userId: string) {
    const set = this.byEmail.get(email);
    set?.delete(userId);
    if (set?.size === 0) this.byEmail.delete(email);
  }
  async usersByEmail(email: string) {
    return [...(this.byEmail.get(email) ?? [])];
  }
}
