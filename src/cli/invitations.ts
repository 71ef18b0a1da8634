// `sigil invitations create [--email E]` (docs/cli.md#sigil-invitations-create): the operator's way
// to make a sign-up invitation (SIGNUP=invite) without the console. The link is printed once (only
// its token's hash is stored); it makes one account within 7 days. Recorded as invitation.created.
import { FormError } from "../domain/accounts.js";
import { BY_OPERATOR } from "../domain/invitations.js";
import { UsageError, type CliCommand } from "./common.js";

export const invitationsCommands: readonly CliCommand[] = [
  {
    name: "invitations create",
    usage: "[--email E]",
    description:
      'Makes a single-use sign-up link (SIGNUP=invite), valid 7 days, optionally for one address → {"link","expires_at","email"?}; the link is shown only this once.',
    options: { email: { type: "string" } },
    async run(ctx) {
      const email = typeof ctx.values.email === "string" ? ctx.values.email : undefined;
      try {
        const { link, record } = await ctx.services.invitations.create({ createdBy: BY_OPERATOR, email });
        ctx.services.audit.record({ type: "invitation.created", origin: "operator" });
        return {
          link,
          expires_at: new Date(record.expiresAt).toISOString(),
          ...(record.email ? { email: record.email } : {}),
        };
      } catch (err) {
        if (err instanceof FormError) throw new UsageError(err.message);
        throw err;
      }
    },
  },
];
