// `sigil users create --username U --password P [--display-name D]` → {"id","username"}; `users
// reset-password` and `users delete` below.
import { FormError } from "../domain/accounts.js";
import { UsageError, required, type CliCommand } from "./common.js";
import { OPERATOR } from "../domain/security-mails.js";

export const usersCreate: CliCommand = {
  name: "users create",
  usage: "--username U --password P [--display-name D]",
  options: { username: { type: "string" }, password: { type: "string" }, "display-name": { type: "string" } },
  async run({ services, values }) {
    const displayName = values["display-name"];
    try {
      const user = await services.accounts.create({
        username: required(values, "username"),
        password: required(values, "password"),
        displayName: typeof displayName === "string" ? displayName : undefined,
      });
      return { id: user.id, username: user.username };
    } catch (err) {
      if (err instanceof FormError) throw new UsageError(err.description);
      throw err;
    }
  },
};

/** The user named by --username, or a usage error naming it. */
async function userNamed(ctx: Parameters<CliCommand["run"]>[0]) {
  const username = required(ctx.values, "username").trim().toLowerCase();
  const user = await ctx.services.accounts.byUsername(username);
  if (!user) throw new UsageError(`there is no user "${username}"`);
  return user;
}

// `sigil users reset-password --username U --password P` → {"username"}: the sign-up rules; every
// session of the user ends and every access and refresh token is revoked.
export const usersResetPassword: CliCommand = {
  name: "users reset-password",
  usage: "--username U --password P",
  options: { username: { type: "string" }, password: { type: "string" } },
  async run(ctx) {
    const password = required(ctx.values, "password");
    const user = await userNamed(ctx);
    try {
      await ctx.services.accountLife.resetPassword(user, password);
    } catch (err) {
      if (err instanceof FormError) throw new UsageError(err.description);
      throw err;
    }
    return { username: user.username };
  },
};

// `sigil users delete --username U` → {"username"}: as "Delete my account" on /account (the user,
// picture, sessions, consents, tokens, and the apps they own with those apps' CUSTOM TOKENs).
export const usersDelete: CliCommand = {
  name: "users delete",
  usage: "--username U",
  options: { username: { type: "string" } },
  async run(ctx) {
    const user = await userNamed(ctx);
    await ctx.services.accountLife.deleteAccount(user, OPERATOR);
    return { username: user.username };
  },
};

// `sigil users reset-2fa --username U` → {"username"}: turns the user's two-factor off (a lost
// phone and lost recovery codes); the next password sign-in asks for no code.
export const usersResetTwoFactor: CliCommand = {
  name: "users reset-2fa",
  usage: "--username U",
  options: { username: { type: "string" } },
  async run(ctx) {
    const user = await userNamed(ctx);
    await ctx.services.twoFactor.reset(user.id);
    return { username: user.username };
  },
};
