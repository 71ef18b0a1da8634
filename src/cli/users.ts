// `sigil users create --username U --password P [--display-name D]` → {"id","username"}.
import { FormError } from "../domain/accounts.js";
import { UsageError, required, type CliCommand } from "./common.js";

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

// `sigil users reset-2fa --username U` → {"username"}: turns the user's two-factor off (a lost
// phone and lost recovery codes); the next password sign-in asks for no code.
export const usersResetTwoFactor: CliCommand = {
  name: "users reset-2fa",
  usage: "--username U",
  options: { username: { type: "string" } },
  async run({ services, values }) {
    const name = required(values, "username").trim().toLowerCase();
    const user = await services.accounts.byUsername(name);
    if (!user) throw new UsageError(`there is no user "${name}"`);
    await services.twoFactor.reset(user.id);
    return { username: user.username };
  },
};
