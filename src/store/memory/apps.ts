// The in-process store's apps, by client id.
import { clone } from "./clone.js";
import type { AppRecord, AppStore } from "../port.js";
import { corsOriginKey } from "../port.js";

export class MemoryApps implements AppStore {
  private readonly apps = new Map<string, AppRecord>();
  async create(app: AppRecord) {
    this.apps.set(app.clientId, clone(app));
  }
  async get(clientId: string) {
    const a = this.apps.get(clientId);
    return a ? clone(a) : null;
  }
  async update(app: AppRecord) {
    if (this.apps.has(app.clientId)) this.apps.set(app.clientId, clone(app));
  }
  async delete(clientId: string) {
    this.apps.delete(clientId);
  }
  /** Whether the app exists, at once (the grant store's writes check it in the same step). */
  has(clientId: string): boolean {
    return this.apps.has(clientId);
  }
  async listByOwner(ownerId: string) {
    return [...this.apps.values()].filter((a) => a.ownerId === ownerId).map(clone);
  }
  async publicOriginKnown(origin: string) {
    for (const a of this.apps.values()) {
      if (a.public && a.redirectUris.some((u) => corsOriginKey(u) === origin)) return true;
    }
    return false;
  }
}
