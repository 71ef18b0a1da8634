// `sigil users disable --username U` and `sigil users enable --username U` → {"username",
// "disabled"} (CONTRACT §14): a disabled user cannot sign in by any way, and their sessions and
// tokens end at once (domain/account-life.ts). Both are idempotent.
import { OPERATOR } from "../domain/security-mails.js";
import { UsageError, type CliCommand } from "./common.js";
import { userNamed } from "./users.js";

export const usersDisable: CliCommand = {
  name: "users disable",
  usage: "--username U",
  description: "Disables a user: they cannot sign in; their sessions and tokens end at once.",
  options: { username: { type: "string" } },
  async run(ctx) {
    const user = await userNamed(ctx);
    const saved = await ctx.services.accountLife.disable(user, OPERATOR);
    if (!saved) throw new UsageError(`there is no user "${user.username}"`);
    return { username: saved.username, disabled: true };
  },
};

export const usersEnable: CliCommand = {
  name: "users enable",
  usage: "--username U",
  description: "Enables a disabled user again: they can sign in (ended sessions and tokens stay ended).",
  options: { username: { type: "string" } },
  async run(ctx) {
    const user = await userNamed(ctx);
    const saved = await ctx.services.accountLife.enable(user, OPERATOR);
    if (!saved) throw new UsageError(`there is no user "${user.username}"`);
    return { username: saved.username, disabled: false };
  },
};
