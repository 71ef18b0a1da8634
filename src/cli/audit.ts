// `sigil audit [--since ISO] [--username U] [--type T …]` → the audit log as JSON lines, oldest
// first (docs/cli.md#sigil-audit): every record AUDIT_RETENTION keeps, or those since a time, of one
// user, of some types. Read in pages, printed as they come: a long log is never held whole.
import { AUDIT_TYPES } from "../domain/audit.js";
import type { AuditRecord } from "../store/port.js";
import { JsonLines, UsageError, type CliCommand, type CliContext } from "./common.js";

const PAGE = 500;

/** A record as a line: its time as an ISO 8601 string (the store keeps milliseconds). */
function line(r: AuditRecord): Record<string, unknown> {
  return { ...r, time: new Date(r.time).toISOString() };
}

function sinceOf(values: CliContext["values"]): number | undefined {
  const raw = values.since;
  if (typeof raw !== "string") return undefined;
  const ms = Date.parse(raw);
  // Date.parse takes more than ISO 8601; an ISO date or date-time is what docs/cli.md promises.
  if (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(raw) || Number.isNaN(ms))
    throw new UsageError(
      `--since: "${raw.slice(0, 64)}" is not an ISO 8601 date or time (2026-11-26 or 2026-11-26T17:00:00Z)`,
    );
  return ms;
}

function typesOf(values: CliContext["values"]): string[] | undefined {
  const raw = values.type;
  if (raw === undefined) return undefined;
  const types = (Array.isArray(raw) ? raw : [raw]).map(String);
  const known: readonly string[] = AUDIT_TYPES;
  for (const t of types)
    if (!known.includes(t))
      throw new UsageError(
        `--type: "${t.slice(0, 64)}" is not a type of record; the types are ${AUDIT_TYPES.join(", ")}`,
      );
  return types;
}

export const audit: CliCommand = {
  name: "audit",
  usage: "[--since ISO] [--username U] [--type T …]",
  description: "Prints the audit log as JSON lines, oldest first (AUDIT_RETENTION's worth, or since a time).",
  options: { since: { type: "string" }, username: { type: "string" }, type: { type: "string", multiple: true } },
  readOnly: true,
  async run(ctx) {
    const since = sinceOf(ctx.values);
    const types = typesOf(ctx.values);
    let userId: string | undefined;
    if (typeof ctx.values.username === "string") {
      const user = await ctx.services.accounts.byUsername(ctx.values.username);
      if (!user) throw new UsageError(`there is no user "${ctx.values.username.slice(0, 64)}"`);
      userId = user.id;
    }
    const log = ctx.services.audit;
    // The first page is read now, so that a store that is away fails the command before any line.
    const first = await log.list({ since, types, userId, order: "oldest", limit: PAGE });
    return new JsonLines(
      (async function* () {
        let page = first;
        for (;;) {
          yield* page.records.map(line);
          if (page.next === undefined) return;
          page = await log.list({ since, types, userId, order: "oldest", limit: PAGE, cursor: page.next });
        }
      })(),
    );
  },
};
