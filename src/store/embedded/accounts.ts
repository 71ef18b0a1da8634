// The embedded store's accounts: users, the username index (ordered: it pages users by name) and
// pictures, in tables.
import type { AccountStore, UserChange, UserListOptions, UserRecord } from "../port.js";
import { USER_LIST_BATCH, changedUser, userMatches } from "../port.js";
import type { Engine } from "./engine.js";

export class EmbeddedAccounts implements AccountStore {
  private readonly users;
  private readonly names;
  private readonly pictures;

  constructor(private readonly engine: Engine) {
    this.users = engine.table<UserRecord>("users");
    this.names = engine.table<string>("usernames");
    this.pictures = engine.table<Uint8Array>("pictures");
  }

  create(user: UserRecord): Promise<boolean> {
    return this.engine.write(() => {
      if (this.names.has(user.username)) return false;
      this.names.put(user.username, user.id);
      this.users.put(user.id, user);
      return true;
    });
  }
  async byId(id: string) {
    return this.users.get(id) ?? null;
  }
  async byUsername(username: string) {
    const id = this.names.get(username);
    return id === undefined ? null : this.byId(id);
  }
  update(id: string, change: UserChange) {
    return this.engine.write(() => {
      const current = this.users.get(id);
      if (!current) return null;
      const next = changedUser(current, change);
      if (next) this.users.put(id, next);
      return next ?? current;
    });
  }
  delete(user: UserRecord) {
    return this.engine.write(() => {
      const had = this.users.remove(user.id);
      if (this.names.get(user.username) === user.id) this.names.remove(user.username);
      this.pictures.remove(user.id);
      return had;
    });
  }
  async savePicture(id: string, data: Buffer) {
    await this.engine.write(() => this.pictures.put(id, Buffer.from(data)));
  }
  async picture(id: string) {
    const p = this.pictures.get(id);
    return p === undefined ? null : Buffer.from(p);
  }
  async list({ query, after, limit }: UserListOptions) {
    const out: UserRecord[] = [];
    let cursor = after;
    while (out.length < limit) {
      const want = query ? USER_LIST_BATCH : limit - out.length;
      const batch = this.names.range([], { ...(cursor === undefined ? {} : { after: [cursor] }), limit: want });
      for (const { value: id } of batch) {
        const user = this.users.get(id);
        if (user && userMatches(user, query)) out.push(user);
        if (out.length >= limit) break;
      }
      if (batch.length < want) break;
      cursor = String(batch.at(-1)!.key[0]);
    }
    return out;
  }
  async reindex(): Promise<void> {
    // The username table is the index: written with every user.
  }
}
