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
