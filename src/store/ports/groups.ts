// Groups (CONTRACT §14, docs/cli.md#sigil-groups-create): named sets of users, given to apps as the
// `groups` claim. Names are checked and case-folded by the domain (domain/groups.ts) before they
// reach the store. Every change is one atomic step; a user's groups are read on every token issue,
// so they are one read.

export interface GroupRecord {
  /** The group's name: 1–64 of a-z, 0-9, ".", "_", "-", beginning with a letter or a digit. */
  name: string;
  /** When it was made (ms since the epoch). */
  createdAt: number;
}

export interface GroupSummary extends GroupRecord {
  /** How many users are in it. */
  members: number;
}

export interface GroupStore {
  /** Makes a group; false, and nothing changed, when the name is taken. */
  create(group: GroupRecord): Promise<boolean>;
  get(name: string): Promise<GroupRecord | null>;
  /** Deletes a group and its memberships at once; false when there was none. */
  delete(name: string): Promise<boolean>;
  /**
   * Adds a user to a group, atomically with the group's existence: "added", "already" (a member,
   * nothing changed: of calls made at once, one adds), or "no-group" (nothing written).
   */
  addMember(name: string, userId: string): Promise<"added" | "already" | "no-group">;
  /** Removes a user from a group: "removed", "not-member" or "no-group" (nothing changed). */
  removeMember(name: string, userId: string): Promise<"removed" | "not-member" | "no-group">;
  /** Every group with its member count, by name. */
  list(): Promise<GroupSummary[]>;
  /** The ids of a group's members, sorted; null when there is no such group. */
  members(name: string): Promise<string[] | null>;
  /** The names of the groups a user is in, sorted (one read: it is read on every token issue). */
  groupsOf(userId: string): Promise<string[]>;
  /** Takes a user out of every group (account deletion). */
  removeUser(userId: string): Promise<void>;
}
