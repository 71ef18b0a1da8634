// Groups (CONTRACT §14; docs/cli.md#sigil-groups-create, docs/choices.md#groups): named sets of
// users that apps receive as the `groups` claim. A name is 1–64 of a-z, 0-9, ".", "_" and "-",
// beginning with a letter or a digit; it is case-folded ("Ops" is "ops"), so a name is one claim
// value whatever case it was typed in, and it never begins with "-" (no confusion with an option).
import type { AppRecord, GroupSummary, Store, UserRecord } from "../store/port.js";

const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export const GROUP_NAME_RULE =
  "a group name is 1–64 characters of a-z, 0-9, '.', '_' and '-', beginning with a letter or a digit";

/** The name as stored (trimmed, lower-cased), or null when it breaks the rule. */
export function groupName(raw: string): string | null {
  const name = raw.trim().toLowerCase();
  return NAME.test(name) ? name : null;
}

/** A refused group change: the reason, for the CLI's usage error. Nothing was changed. */
export class GroupError extends Error {}

export class Groups {
  constructor(private readonly store: Store) {}

  private name(raw: string): string {
    const name = groupName(raw);
    if (name === null) throw new GroupError(GROUP_NAME_RULE);
    return name;
  }

  private async existing(raw: string): Promise<string> {
    const name = this.name(raw);
    if (!(await this.store.groups.get(name))) throw new GroupError(`there is no group "${name}"`);
    return name;
  }

  async create(raw: string): Promise<string> {
    const name = this.name(raw);
    if (!(await this.store.groups.create({ name, createdAt: Date.now() })))
      throw new GroupError(`there is already a group "${name}"`);
    return name;
  }

  async delete(raw: string): Promise<string> {
    const name = this.name(raw);
    if (!(await this.store.groups.delete(name))) throw new GroupError(`there is no group "${name}"`);
    return name;
  }

  /** Adds the user; false when they were in it already. */
  async add(raw: string, user: UserRecord): Promise<{ name: string; added: boolean }> {
    const name = this.name(raw);
    const r = await this.store.groups.addMember(name, user.id);
    if (r === "no-group") throw new GroupError(`there is no group "${name}"`);
    return { name, added: r === "added" };
  }

  /** Removes the user; false when they were not in it. */
  async remove(raw: string, user: UserRecord): Promise<{ name: string; removed: boolean }> {
    const name = this.name(raw);
    const r = await this.store.groups.removeMember(name, user.id);
    if (r === "no-group") throw new GroupError(`there is no group "${name}"`);
    return { name, removed: r === "removed" };
  }

  list(): Promise<GroupSummary[]> {
    return this.store.groups.list();
  }

  /** A group's members (id and username), by username. */
  async members(raw: string): Promise<Array<{ id: string; username: string }>> {
    const name = await this.existing(raw);
    const ids = (await this.store.groups.members(name)) ?? [];
    const users = await Promise.all(ids.map((id) => this.store.accounts.byId(id)));
    return users
      .filter((u): u is UserRecord => u !== null)
      .map((u) => ({ id: u.id, username: u.username }))
      .sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0));
  }

  /** The names as stored, each of a group that exists (an app's restriction); a GroupError otherwise. */
  async existingAll(raws: readonly string[]): Promise<string[]> {
    const names: string[] = [];
    for (const raw of raws) names.push(await this.existing(raw));
    return [...new Set(names)].sort();
  }

  /**
   * Whether the user may sign in to the app: it is restricted to no group, or the user is in one
   * of its groups (a group deleted since counts as one nobody is in).
   */
  async allows(app: AppRecord, userId: string): Promise<boolean> {
    if (!app.groups?.length) return true;
    const mine = new Set(await this.store.groups.groupsOf(userId));
    return app.groups.some((g) => mine.has(g));
  }

  /** The names of the user's groups, sorted: the `groups` claim. */
  of(userId: string): Promise<string[]> {
    return this.store.groups.groupsOf(userId);
  }
}
