// The embedded store's invitations (store/ports/invitations.ts): the records by id and an index
// token hash → id, written and removed together in one write(); both end at the invitation's end.
import type { InvitationRecord, InvitationStore } from "../port.js";
import type { Engine } from "./engine.js";

export class EmbeddedInvitations implements InvitationStore {
  private readonly records;
  private readonly byToken;

  constructor(private readonly engine: Engine) {
    this.records = engine.table<InvitationRecord>("invitations");
    this.byToken = engine.table<string>("invitations-by-token");
  }

  async save(record: InvitationRecord) {
    await this.engine.write(() => {
      this.records.put(record.id, record, record.expiresAt);
      this.byToken.put(record.tokenHash, record.id, record.expiresAt);
    });
  }
  async list() {
    return this.records
      .range([])
      .map((e) => e.value)
      .sort((a, b) => a.createdAt - b.createdAt);
  }
  async peek(tokenHash: string) {
    const id = this.byToken.get(tokenHash);
    return (id !== undefined && this.records.get(id)) || null;
  }
  take(tokenHash: string) {
    return this.engine.write(() => {
      const id = this.byToken.get(tokenHash);
      if (id === undefined) return null;
      const record = this.records.get(id) ?? null;
      this.byToken.remove(tokenHash);
      this.records.remove(id);
      return record;
    });
  }
  revoke(id: string) {
    return this.engine.write(() => {
      const record = this.records.get(id);
      if (!record) return null;
      this.records.remove(id);
      this.byToken.remove(record.tokenHash);
      return record;
    });
  }
}
