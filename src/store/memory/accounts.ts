// The in-process store's accounts: users, usernames and pictures, in maps.
import { clone } from "./clone.js";
import type { AccountStore, UserChange, UserRecord } from "../port.js";
import { changedUser } from "../port.js";

export class MemoryAccounts implements AccountStore {
  private readonly users = new Map<string, UserRecord>();
  private readonly names = new Map<string, string>();
  private readonly pictures = new Map<string, Buffer>();

  async create(user: UserRecord): Promise<boolean> {
    if (this.names.has(user.username)) return false;
    this.names.set(user.username, user.id);
    this.users.set(user.id, clone(user));
    return true;
  }
  async byId(id: string) {
    const u = this.users.get(id);
    return u ? clone(u) : null;
  }
  async byUsername(username: string) {
    const id = this.names.get(username);
    return id === undefined ? null : this.byId(id);
  }
  /** Read, change and write with no await between: atomic in this process. */
  async update(id: string, change: UserChange) {
    const current = this.users.get(id);
    if (!current) return null;
    const next = changedUser(current, change);
    if (next) this.users.set(id, clone(next));
    return clone(next ?? current);
  }
  async delete(user: UserRecord) {
    const had = this.users.delete(user.id);
    if (this.names.get(user.username) === user.id) this.names.delete(user.username);
    this.pictures.delete(user.id);
    return had;
  }
  async savePicture(id: string, data: Buffer) {
    this.pictures.set(id, Buffer.from(data));
  }
  async picture(id: string) {
    return this.pictures.get(id) ?? null;
  }
}
