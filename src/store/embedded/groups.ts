// The embedded store's groups (store/ports/groups.ts): the records by name, and the memberships
// twice — [group, user] for a group's members, [user, group] for a user's groups — written
// together in one write(), so that the two never disagree.
import type { GroupRecord, GroupStore } from "../port.js";
import type { Engine } from "./engine.js";

export class EmbeddedGroups implements GroupStore {
  private readonly records;
  private readonly members_;
  private readonly ofUser;

  constructor(private readonly engine: Engine) {
    this.records = engine.table<GroupRecord>("groups");
    this.members_ = engine.table<1>("group-members");
    this.ofUser = engine.table<1>("user-groups");
  }

  create(group: GroupRecord) {
    return this.engine.write(() => {
      if (this.records.has(group.name)) return false;
      this.records.put(group.name, group);
      return true;
    });
  }
  async get(name: string) {
    return this.records.get(name) ?? null;
  }
  delete(name: string) {
    return this.engine.write(() => {
      for (const { key } of this.members_.range([name])) {
        this.members_.remove(key);
        this.ofUser.remove([String(key[1]), name]);
      }
      return this.records.remove(name);
    });
  }
  addMember(name: string, userId: string) {
    return this.engine.write(() => {
      if (!this.records.has(name)) return "no-group" as const;
      if (this.members_.has([name, userId])) return "already" as const;
      this.members_.put([name, userId], 1);
      this.ofUser.put([userId, name], 1);
      return "added" as const;
    });
  }
  removeMember(name: string, userId: string) {
    return this.engine.write(() => {
      if (!this.records.has(name)) return "no-group" as const;
      this.ofUser.remove([userId, name]);
      return this.members_.remove([name, userId]) ? ("removed" as const) : ("not-member" as const);
    });
  }
  async list() {
    return this.records.range([]).map(({ value }) => ({ ...value, members: this.members_.count([value.name]) }));
  }
  async members(name: string) {
    if (!this.records.has(name)) return null;
    return this.members_
      .range([name])
      .map((e) => String(e.key[1]))
      .sort();
  }
  async groupsOf(userId: string) {
    return this.ofUser
      .range([userId])
      .map((e) => String(e.key[1]))
      .sort();
  }
  async removeUser(userId: string) {
    await this.engine.write(() => {
      for (const { key } of this.ofUser.range([userId])) {
        this.ofUser.remove(key);
        this.members_.remove([String(key[1]), userId]);
      }
    });
  }
}
