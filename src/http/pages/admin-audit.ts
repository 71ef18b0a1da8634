// {auth_url}/admin/audit (docs/pages.md#administration, CONTRACT §14 "Audit log"): the audit log
// for admins, newest first in pages of 50, filtered by types, a username and a time. A GET form and
// plain links: it works without JavaScript. A filter the page cannot take (a value over 200
// characters, a type that is not one, a date it cannot read, a cursor this log did not give) is a
// 400 page that says which, with no records; an unknown username says so, with no records.
import type { Request, RequestHandler, Router } from "express";
import { AUDIT_TYPES } from "../../domain/audit.js";
import { AUDIT_CURSOR, type AuditActor, type AuditRecord } from "../../store/port.js";
import type { FormProblem, Ui } from "../../views/layout.js";
import { AdminAuditPage, type AuditFilters, type AuditRow } from "../../views/admin-audit.js";
import { route } from "../route.js";
import { adminOf, adminOnly } from "./admin.js";
import { page, type PagesDeps } from "./context.js";
import { sendPage } from "./send-page.js";
import { csrfToken } from "./session.js";
import { pageUi } from "./ui.js";

export const AUDIT_PAGE = 50;
/** Records looked at, at most, for one page filtered by type (the rest: the next page's). */
export const AUDIT_SCAN = 1000;
const MAX_FILTER = 200;

/** Every value of a query parameter, as strings (nested values are ignored). */
function values(req: Request, name: string): string[] {
  const v: unknown = (req.query as Record<string, unknown>)[name];
  return (Array.isArray(v) ? (v as unknown[]) : [v]).filter((x): x is string => typeof x === "string");
}
const one = (req: Request, name: string) => values(req, name)[0] ?? "";

/**
 * A "since" of the form (the date-time picker's 2026-11-26T17:00, seconds optional) or an ISO 8601
 * date or time with its zone; without a zone it is UTC, as the page says. NaN when not one.
 */
export function parseSince(raw: string): number {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)(Z|[+-]\d{2}:\d{2})?)?$/.exec(raw);
  if (!m) return NaN;
  return Date.parse(`${m[1]}T${m[2] ?? "00:00"}${m[3] ?? "Z"}`);
}

type Parsed =
  { filters: AuditFilters; since?: number; cursor?: string } | { filters: AuditFilters; problem: FormProblem };

function parse(req: Request, ui: Ui): Parsed {
  const types = values(req, "type");
  const username = one(req, "username");
  const since = one(req, "since");
  const cursor = one(req, "cursor");
  const known: readonly string[] = AUDIT_TYPES;
  const long = [...types, username, since, cursor].some((v) => v.length > MAX_FILTER);
  // What is shown back in the form: only values that are safe to show (short, known types).
  const filters: AuditFilters = {
    types: types.filter((t) => known.includes(t)),
    username: username.length > MAX_FILTER ? "" : username,
    since: since.length > MAX_FILTER ? "" : since,
  };
  if (long) return { filters, problem: { text: ui.t("adminAudit.tooLong", { max: MAX_FILTER }) } };
  const unknown = types.find((t) => !known.includes(t));
  if (unknown !== undefined)
    return { filters, problem: { text: ui.t("adminAudit.badType", { type: unknown }), field: "type" } };
  const at = since ? parseSince(since) : undefined;
  if (at !== undefined && Number.isNaN(at))
    return { filters: { ...filters, since: "" }, problem: { text: ui.t("adminAudit.badSince"), field: "since" } };
  if (cursor && !AUDIT_CURSOR.test(cursor)) return { filters, problem: { text: ui.t("adminAudit.badCursor") } };
  return { filters, ...(at !== undefined ? { since: at } : {}), ...(cursor ? { cursor } : {}) };
}

/** The records in words: names of actors, accounts and apps looked up once a page. */
async function rowsOf(deps: PagesDeps, ui: Ui, records: AuditRecord[]): Promise<AuditRow[]> {
  const users = new Map<string, Promise<string | undefined>>();
  const apps = new Map<string, Promise<string | undefined>>();
  const userName = (id: string) => {
    if (!users.has(id))
      users.set(
        id,
        deps.accounts.byId(id).then((u) => u?.username),
      );
    return users.get(id)!;
  };
  const appName = (id: string) => {
    if (!apps.has(id))
      apps.set(
        id,
        deps.apps.byClientId(id).then((a) => a?.name),
      );
    return apps.get(id)!;
  };
  const actorOf = async (a: AuditActor | undefined): Promise<string | undefined> => {
    if (!a) return undefined;
    if (a.kind === "operator") return ui.t("adminAudit.operator");
    if (a.kind === "app")
      return ui.t("adminAudit.byApp", { name: (a.id && (await appName(a.id))) ?? a.name ?? a.id ?? "?" });
    const name = (a.id && (await userName(a.id))) ?? a.name ?? ui.t("adminAudit.gone");
    return a.kind === "admin" ? ui.t("adminAudit.byAdmin", { name }) : name;
  };
  return Promise.all(
    records.map(async (r): Promise<AuditRow> => {
      const current = r.user_id !== undefined ? await userName(r.user_id) : undefined;
      const app = r.client_id !== undefined ? await appName(r.client_id) : undefined;
      return {
        id: r.id,
        time: r.time,
        type: r.type,
        actor: await actorOf(r.actor),
        account:
          r.user_id !== undefined
            ? { id: r.user_id, name: current ?? r.username ?? ui.t("adminAudit.gone"), exists: current !== undefined }
            : r.username !== undefined
              ? { id: "", name: r.username, exists: false }
              : undefined,
        app: r.client_id !== undefined ? (app ? `${app} (${r.client_id})` : r.client_id) : undefined,
        address: r.address,
        browser: r.browser,
        // What it was about besides the account and the app: the group or upstream a record names.
        how: [r.method, r.reason, r.group, r.upstream].filter(Boolean).join(" · ") || undefined,
        requestId: r.request_id,
      };
    }),
  );
}

/** GET /admin/audit[?type=…&username=…&since=…&cursor=…]. */
function auditPage(deps: PagesDeps): RequestHandler {
  return page(async (req, res) => {
    const ui = pageUi(req, deps.config);
    const signed = { ui, user: adminOf(res), csrf: await csrfToken(req) };
    const parsed = parse(req, ui);
    const later = !!one(req, "cursor");
    if ("problem" in parsed)
      return sendPage(
        res,
        400,
        AdminAuditPage({ ...signed, filters: parsed.filters, records: [], later, problem: parsed.problem }),
      );
    const { filters } = parsed;
    let userId: string | undefined;
    if (filters.username) {
      const user = await deps.accounts.byUsername(filters.username);
      if (!user) {
        const problem = { text: ui.t("adminAudit.noUser", { name: filters.username }), field: "username" };
        return sendPage(res, 200, AdminAuditPage({ ...signed, filters, records: [], later, problem }));
      }
      userId = user.id;
    }
    const types = filters.types.length > 0 ? filters.types : undefined;
    const found = await deps.audit.list({
      userId,
      types,
      since: parsed.since,
      cursor: parsed.cursor,
      limit: AUDIT_PAGE,
      // A filter by type walks the log: a page looks at so many records at most, then links on.
      ...(types ? { scanLimit: AUDIT_SCAN } : {}),
    });
    const records = await rowsOf(deps, ui, found.records);
    sendPage(res, 200, AdminAuditPage({ ...signed, filters, records, next: found.next, later }));
  });
}

/** Mounts /admin/audit (pages/index.ts). */
export function adminAuditRoutes(router: Router, deps: PagesDeps): void {
  route(router, "/admin/audit", { get: [adminOnly(deps), auditPage(deps)] });
}
