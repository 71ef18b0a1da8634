// The embedded store's apps by client id, with two indexes: by owner, and the origins of public
// clients' redirect URIs (CORS).
import type { AppChange, AppRecord, AppStore } from "../port.js";
import { changedApp, corsOriginKey } from "../port.js";
import type { Engine } from "./engine.js";

const publicOrigins = (a: AppRecord): string[] =>
  a.public ? [...new Set(a.redirectUris.map(corsOriginKey).filter((o): o is string => o !== undefined))] : [];

export class EmbeddedApps implements AppStore {
  private readonly apps;
  private readonly byOwner;
  private readonly origins;

  constructor(private readonly engine: Engine) {
    this.apps = engine.table<AppRecord>("apps");
    this.byOwner = engine.table<1>("apps-by-owner");
    this.origins = engine.table<1>("public-origins");
  }

  /** Inside write(): replaces the app's record and its index entries. */
  private putNow(app: AppRecord): void {
    this.unindex(app.clientId);
    this.apps.put(app.clientId, app);
    this.byOwner.put([app.ownerId, app.clientId], 1);
    for (const o of publicOrigins(app)) this.origins.put([o, app.clientId], 1);
  }
  private unindex(clientId: string): void {
    const old = this.apps.get(clientId);
    if (!old) return;
    this.byOwner.remove([old.ownerId, clientId]);
    for (const o of publicOrigins(old)) this.origins.remove([o, clientId]);
  }

  async create(app: AppRecord) {
    await this.engine.write(() => this.putNow(app));
  }
  async get(clientId: string) {
    return this.apps.get(clientId) ?? null;
  }
  async update(clientId: string, change: AppChange) {
    return this.engine.write(() => {
      const current = this.apps.get(clientId);
      if (!current) return null;
      const next = changedApp(current, change);
      if (!next) return current;
      this.putNow(next);
      return next;
    });
  }
  async delete(clientId: string) {
    await this.engine.write(() => {
      this.unindex(clientId);
      this.apps.remove(clientId);
    });
  }
  /** Whether the app exists, at once (the grant store's writes check it in the same step). */
  has(clientId: string): boolean {
    return this.apps.has(clientId);
  }
  async listByOwner(ownerId: string) {
    return this.byOwner
      .range([ownerId])
      .map((e) => this.apps.get(e.key[1]!)) // [owner, client id]
      .filter((a): a is AppRecord => a !== undefined);
  }
  async list({ after, limit }: { after?: string; limit: number }) {
    return this.apps.range([], { ...(after === undefined ? {} : { after: [after] }), limit }).map((e) => e.value);
  }
  async reindex(): Promise<void> {} // the apps table is its own index
  async publicOriginKnown(origin: string) {
    return this.origins.count([origin]) > 0;
  }
}
