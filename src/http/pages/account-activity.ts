// "Recent activity" (docs/pages.md#the-account-page, CONTRACT §14 "Audit log"): the signed-in
// user's own security events, from the audit log's per-user list — the last 10 on /account
// (account.ts) and GET /account/activity[?cursor=] in pages of 50. Only records about the user's
// own account: an admin's actions on other accounts (in the admin's list as actor) never show
// here. An action by an admin says "by an administrator", not who (docs/choices.md).
import type { Request, RequestHandler, Router } from "express";
import { AUDIT_TYPES } from "../../domain/audit.js";
import { AUDIT_CURSOR } from "../../store/port.js";
import { AccountActivityPage, type ActivityRow } from "../../views/account-activity.js";
import { route } from "../route.js";
import { currentUser, page, signInUrl, type PagesDeps } from "./context.js";
import { sendPage } from "./send-page.js";
import { csrfToken } from "./session.js";
import { pageUi } from "./ui.js";

export const ACTIVITY_ON_ACCOUNT = 10;
export const ACTIVITY_PAGE = 50;

/** The user's security events: every type but the apps' and the signing keys' own. */
export const SECURITY_TYPES: string[] = AUDIT_TYPES.filter((t) => !t.startsWith("app.") && t !== "key.rotated");

/**
 * Up to `limit` of the user's own events, newest first, from `cursor`; `next` is the id of the
 * last one shown when there may be more. A few pages of the list are read at most (bounded).
 */
export async function ownActivity(
  deps: PagesDeps,
  userId: string,
  limit: number,
  cursor?: string,
): Promise<{ rows: ActivityRow[]; next?: string | undefined }> {
  const rows: ActivityRow[] = [];
  let at = cursor;
  for (let round = 0; round < 5 && rows.length < limit; round++) {
    const page = await deps.audit.list({
      userId,
      types: SECURITY_TYPES,
      limit: limit - rows.length,
      scanLimit: 500,
      ...(at !== undefined ? { cursor: at } : {}),
    });
    for (const r of page.records) {
      if (r.user_id !== userId) continue; // the user as an admin, acting on someone else
      const by =
        r.actor?.kind === "admin" && r.actor.id !== userId
          ? "admin"
          : r.actor?.kind === "operator"
            ? "operator"
            : undefined;
      rows.push({ id: r.id, time: r.time, type: r.type, browser: r.browser, address: r.address, by });
    }
    if (page.next === undefined) return { rows };
    at = page.next;
  }
  return { rows, next: at };
}

/** GET /account/activity[?cursor=]: a page of 50; a cursor that is not one is a 400 page. */
function activityPage(deps: PagesDeps): RequestHandler {
  return page(async (req: Request, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, signInUrl(req));
    const ui = pageUi(req, deps.config);
    const signed = { ui, user, csrf: await csrfToken(req) };
    const raw: unknown = req.query.cursor;
    const cursor = typeof raw === "string" && raw !== "" ? raw : undefined;
    if (raw !== undefined && (cursor === undefined || !AUDIT_CURSOR.test(cursor))) {
      const problem = { text: ui.t("activity.badCursor") };
      return sendPage(res, 400, AccountActivityPage({ ...signed, rows: [], later: true, problem }));
    }
    const found = await ownActivity(deps, user.id, ACTIVITY_PAGE, cursor);
    sendPage(res, 200, AccountActivityPage({ ...signed, rows: found.rows, next: found.next, later: !!cursor }));
  });
}

export function accountActivityRoutes(router: Router, deps: PagesDeps): void {
  route(router, "/account/activity", { get: activityPage(deps) });
}
