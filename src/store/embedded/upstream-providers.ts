// The embedded store's upstream providers added on /admin (store/ports/upstream-providers.ts): one
// table by id; each change one write().
import type { StoredUpstreamRecord, UpstreamProviderStore } from "../port.js";
import type { Engine } from "./engine.js";

export class EmbeddedUpstreamProviders implements UpstreamProviderStore {
  private readonly records;

  constructor(private readonly engine: Engine) {
    this.records = engine.table<StoredUpstreamRecord>("upstream-providers");
  }

  add(record: StoredUpstreamRecord) {
    return this.engine.write(() => {
      if (this.records.has(record.id)) return false;
      this.records.put(record.id, record);
      return true;
    });
  }
  update(record: StoredUpstreamRecord) {
    return this.engine.write(() => {
      if (!this.records.has(record.id)) return false;
      this.records.put(record.id, record);
      return true;
    });
  }
  remove(id: string) {
    return this.engine.write(() => {
      const record = this.records.get(id);
      if (!record) return null;
      this.records.remove(id);
      return record;
    });
  }
  async get(id: string) {
    return this.records.get(id) ?? null;
  }
  async list() {
    return this.records.range([]).map((e) => e.value);
  }
}
