// `sigil users create --username U --password P|- [--display-name D]` → {"id","username"}; `users
// reset-password` and `users delete` below.
import { FormError } from "../domain/accounts.js";
import { JsonLines, UsageError, password, required, type CliCommand } from "./common.js";
import type { UserRecord } from "../store/port.js";
import { OPERATOR } from "../domain/security-mails.js";

export const usersCreate: CliCommand = {
  name: "users create",
  usage: "--username U --password P|- [--display-name D] [--admin]",
  description:
    "Creates an account, as sign-up does (--password -: read from standard input); --admin makes it an administrator.",
  options: {
    username: { type: "string" },
    password: { type: "string" },
    "display-name": { type: "string" },
    admin: { type: "boolean" },
  },
  async run(ctx) {
    const { services, values } = ctx;
    const displayName = values["display-name"];
    const username = required(values, "username");
    const secret = await password(ctx);
    try {
      const user = await services.accounts.create({
        username,
        password: secret,
        displayName: typeof displayName === "string" ? displayName : undefined,
        admin: values.admin === true,
      });
      return { id: user.id, username: user.username };
    } catch (err) {
      if (err instanceof FormError) throw new UsageError(err.description);
      throw err;
    }
  },
};

/** The user named by --username, or a usage error naming it. */
export async function userNamed(ctx: Parameters<CliCommand["run"]>[0]) {
  const username = required(ctx.values, "username").trim().toLowerCase();
  const user = await ctx.services.accounts.byUsername(username);
  if (!user) throw new UsageError(`there is no user "${username}"`);
  return user;
}

// `sigil users reset-password --username U --password P|-` → {"username"}: the sign-up rules; every
// session of the user ends and every access and refresh token is revoked.
export const usersResetPassword: CliCommand = {
  name: "users reset-password",
  usage: "--username U --password P|-",
  description: "Sets a user's password and signs them out everywhere (--password -: read from standard input).",
  options: { username: { type: "string" }, password: { type: "string" } },
  async run(ctx) {
    const secret = await password(ctx);
    const user = await userNamed(ctx);
    try {
      await ctx.services.accountLife.resetPassword(user, secret);
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
  description: "Deletes a user with everything held about them, and the apps they own.",
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
  description: "Turns a user's two-factor sign-in off (a lost phone and lost recovery codes).",
  options: { username: { type: "string" } },
  async run(ctx) {
    const user = await userNamed(ctx);
    await ctx.services.twoFactor.reset(user.id);
    return { username: user.username };
  },
};

// `sigil users set-admin --username U --on|--off` → {"username","admin"}: makes the user an
// administrator (§14: {auth_url}/admin) or not; exactly one of --on and --off.
export const usersSetAdmin: CliCommand = {
  name: "users set-admin",
  usage: "--username U --on|--off",
  description: "Makes a user an administrator (--on) or not (--off).",
  options: { username: { type: "string" }, on: { type: "boolean" }, off: { type: "boolean" } },
  async run(ctx) {
    const on = ctx.values.on === true;
    if (on === (ctx.values.off === true)) throw new UsageError("give exactly one of --on and --off");
    const user = await userNamed(ctx);
    const stored = await ctx.services.accounts.setAdmin(user.id, on);
    if (!stored) throw new UsageError(`there is no user "${user.username}"`);
    return { username: stored.username, admin: stored.admin === true };
  },
};

// `sigil users list [--query Q]` → JSON lines, one user a line, in username order; --query keeps
// the users whose username, display name or email holds Q (without regard to case).
export const usersList: CliCommand = {
  name: "users list",
  usage: "[--query Q]",
  description: "Prints every user (or those matching --query in username, display name or email) as JSON lines.",
  options: { query: { type: "string" } },
  // Not readOnly: the list walks an index that data version 2 brought, so an older store is
  // migrated first (as any command but status does).
  async run(ctx) {
    const raw = ctx.values.query;
    const query = typeof raw === "string" ? raw : undefined;
    const accounts = ctx.services.accounts;
    // Checked before the first line is printed: a bad query prints nothing.
    let page: UserRecord[];
    try {
      page = await accounts.list({ query, limit: LIST_PAGE });
    } catch (err) {
      if (err instanceof FormError) throw new UsageError(err.description);
      throw err;
    }
    return new JsonLines(
      (async function* () {
        for (;;) {
          yield* page.map(listLine);
          if (page.length < LIST_PAGE) return;
          page = await accounts.list({ query, after: page.at(-1)!.username, limit: LIST_PAGE });
        }
      })(),
    );
  },
};

const LIST_PAGE = 500;

/** One line of users list. */
function listLine(u: UserRecord) {
  return {
    id: u.id,
    username: u.username,
    display_name: u.displayName,
    email: u.email ?? null,
    email_verified: u.emailVerified === true,
    admin: u.admin === true,
    disabled: u.disabled === true,
    created_at: new Date(u.createdAt).toISOString(),
  };
}
