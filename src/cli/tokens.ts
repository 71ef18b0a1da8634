// `sigil tokens create|revoke` (docs/cli.md#sigil-tokens-create): CUSTOM TOKENs of an app, from the command line.
import { required, UsageError, type CliCommand } from "./common.js";

export function tokensCommands(): CliCommand[] {
  return [
    {
      name: "tokens create",
      description: "Makes a CUSTOM TOKEN of an app, for its realtime channel; shown this once.",
      usage: "--app CLIENT_ID [--name N] [--expires-in SECONDS] [--publish] [--channel NAME]...",
      options: {
        app: { type: "string" },
        name: { type: "string" },
        "expires-in": { type: "string" },
        publish: { type: "boolean" },
        channel: { type: "string", multiple: true },
      },
      async run(ctx) {
        const app = required(ctx.values, "app");
        const raw = ctx.values["expires-in"];
        if (raw !== undefined && (typeof raw !== "string" || !/^\d{1,10}$/.test(raw))) {
          throw new UsageError("--expires-in must be a whole number of seconds");
        }
        const name = ctx.values.name;
        const channels = ctx.values.channel as string[] | undefined;
        const { id, token, record } = await ctx.services.customTokens.create({
          app,
          ...(typeof name === "string" ? { name } : {}),
          ...(typeof raw === "string" ? { expiresIn: Number(raw) } : {}),
          ...(ctx.values.publish === true ? { publish: true } : {}),
          ...(channels !== undefined ? { channels } : {}),
        });
        return {
          id,
          token,
          ...(record.publish === true ? { publish: true } : {}),
          ...(record.channels !== undefined ? { channels: record.channels } : {}),
        };
      },
    },
    {
      name: "tokens revoke",
      description: "Revokes a CUSTOM TOKEN of an app; its sockets end.",
      usage: "--app CLIENT_ID --id ID",
      options: { app: { type: "string" }, id: { type: "string" } },
      async run(ctx) {
        const app = required(ctx.values, "app");
        const id = required(ctx.values, "id");
        if ((await ctx.services.apps.byClientId(app)) === null) throw new UsageError("No app has this client_id.");
        await ctx.services.customTokens.revoke(app, id);
        return { revoked: true };
      },
    },
  ];
}
