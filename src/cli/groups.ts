// `sigil groups create|delete|add|remove|list|members` (docs/cli.md#sigil-groups-create): groups of
// users, given to apps as the `groups` claim. Names follow domain/groups.ts (case-folded). An unknown
// group or user, a taken name or a bad one is a usage error, and nothing is changed. A change is in
// the audit log (group.*, actor operator), as the admin pages record theirs.
import { GroupError } from "../domain/groups.js";
import { JsonLines, required, UsageError, type CliCommand, type CliContext } from "./common.js";

/** Runs a group change, turning a refusal into a usage error. */
async function refused<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof GroupError) throw new UsageError(err.message);
    throw err;
  }
}

async function userNamed(ctx: CliContext) {
  const username = required(ctx.values, "username").trim().toLowerCase();
  const user = await ctx.services.accounts.byUsername(username);
  if (!user) throw new UsageError(`there is no user "${username}"`);
  return user;
}

const nameOnly = { name: { type: "string" } } as const;
const nameAndUser = { name: { type: "string" }, username: { type: "string" } } as const;

export const groupsCommands: readonly CliCommand[] = [
  {
    name: "groups create",
    usage: "--name G",
    description: 'Makes a group (names: 1–64 of a-z 0-9 . _ -, case-folded) → {"name"}.',
    options: nameOnly,
    async run(ctx) {
      const name = await refused(() => ctx.services.groups.create(required(ctx.values, "name")));
      ctx.services.audit.record({ type: "group.created", group: name, origin: "operator" });
      return { name };
    },
  },
  {
    name: "groups delete",
    usage: "--name G",
    description: 'Deletes a group; its members are no longer in it → {"name"}.',
    options: nameOnly,
    async run(ctx) {
      const name = await refused(() => ctx.services.groups.delete(required(ctx.values, "name")));
      ctx.services.audit.record({ type: "group.deleted", group: name, origin: "operator" });
      return { name };
    },
  },
  {
    name: "groups add",
    usage: "--name G --username U",
    description: 'Adds a user to a group → {"name","username","added"} (added false: already in it).',
    options: nameAndUser,
    async run(ctx) {
      const name = required(ctx.values, "name");
      const user = await userNamed(ctx);
      const r = await refused(() => ctx.services.groups.add(name, user));
      if (r.added) {
        const e = { group: r.name, userId: user.id, username: user.username, origin: "operator" } as const;
        ctx.services.audit.record({ type: "group.member_added", ...e });
      }
      return { name: r.name, username: user.username, added: r.added };
    },
  },
  {
    name: "groups remove",
    usage: "--name G --username U",
    description: 'Takes a user out of a group → {"name","username","removed"} (removed false: not in it).',
    options: nameAndUser,
    async run(ctx) {
      const name = required(ctx.values, "name");
      const user = await userNamed(ctx);
      const r = await refused(() => ctx.services.groups.remove(name, user));
      if (r.removed) {
        const e = { group: r.name, userId: user.id, username: user.username, origin: "operator" } as const;
        ctx.services.audit.record({ type: "group.member_removed", ...e });
      }
      return { name: r.name, username: user.username, removed: r.removed };
    },
  },
  {
    name: "groups list",
    usage: "",
    description: 'Prints every group, one JSON line each: {"name","members"} (members: how many).',
    options: {},
    readOnly: true,
    async run(ctx) {
      const groups = await ctx.services.groups.list();
      return new JsonLines(groups.map((g) => ({ name: g.name, members: g.members })));
    },
  },
  {
    name: "groups members",
    usage: "--name G",
    description: 'Prints a group\'s members, one JSON line each: {"username","id"}, by username.',
    options: nameOnly,
    readOnly: true,
    async run(ctx) {
      const members = await refused(() => ctx.services.groups.members(required(ctx.values, "name")));
      return new JsonLines(members.map((m) => ({ username: m.username, id: m.id })));
    },
  },
];
