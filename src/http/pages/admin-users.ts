// {auth_url}/admin/users (docs/pages.md#administration, CONTRACT §14 "Users"): an admin finds an
// account (username, display name or email; pages of 50), sees it, and acts on it: disable,
// enable, sign out everywhere, reset two-factor, send a password reset mail, delete (after a
// confirm step). Every page passes adminOnly; every action the adminAction guards (CSRF, the gate,
// a fresh "Confirm it's you" that comes back to the user's page), and each is in the audit log
// with the admin as actor. An admin cannot disable or delete themself here (docs/choices.md).
import type { Request, RequestHandler, Response, Router } from "express";
import { FormError } from "../../domain/accounts.js";
import type { AuditType } from "../../domain/audit.js";
import type { UserRecord } from "../../store/port.js";
import { ErrorPage } from "../../views/consent.js";
import { AdminUserDeletePage, AdminUserPage, AdminUsersPage, type UserRow } from "../../views/admin-users.js";
import { route } from "../route.js";
import { adminAction, adminOf, adminOnly } from "./admin.js";
import { field, page, type PagesDeps } from "./context.js";
import { sendPage } from "./send-page.js";
import { csrfToken } from "./session.js";
import { pageUi } from "./ui.js";
import { browserSummary, changeOrigin } from "./user-agent.js";

export const USERS_PAGE = 50;

const userUrl = (id: string) => `/admin/users/${encodeURIComponent(id)}`;

/** The first value of a query parameter, or "" (repeated or nested parameters count as their first string). */
function param(req: Request, name: string): string {
  const v: unknown = (req.query as Record<string, unknown>)[name];
  const first = Array.isArray(v) ? (v as unknown[])[0] : v;
  return typeof first === "string" ? first : "";
}

const row = (u: UserRecord): UserRow => ({
  id: u.id,
  username: u.username,
  displayName: u.displayName,
  email: u.email,
  emailVerified: u.emailVerified,
  admin: u.admin,
  disabled: u.disabled,
});

/** GET /admin/users[?q=&after=]: the list. A query too long is a form error (400), nothing searched. */
function usersPage(deps: PagesDeps): RequestHandler {
  return page(async (req, res) => {
    const ui = pageUi(req, deps.config);
    const signed = { ui, user: adminOf(res), csrf: await csrfToken(req) };
    const query = param(req, "q");
    const after = param(req, "after").slice(0, 64) || undefined;
    try {
      const users = await deps.accounts.list({ query, after, limit: USERS_PAGE });
      const next = users.length === USERS_PAGE ? users.at(-1)!.username : undefined;
      sendPage(res, 200, AdminUsersPage({ ...signed, query, users: users.map(row), next, later: !!after }));
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      const problem = { ...ui.message(err), field: "q" };
      sendPage(res, err.status, AdminUsersPage({ ...signed, query: "", users: [], later: false, problem }));
    }
  });
}

/** The user of :id, or a 404 page (answered here). */
async function target(req: Request, res: Response, deps: PagesDeps): Promise<UserRecord | undefined> {
  const id = String(req.params.id ?? "");
  const user = id.length <= 100 ? await deps.accounts.byId(id) : null;
  if (user) return user;
  const ui = pageUi(req, deps.config);
  sendPage(res, 404, ErrorPage({ ui, title: ui.t("error.generic"), message: ui.t("adminUsers.notFound") }));
  return undefined;
}

/** What the page says after an action (?done=…): only these. */
const DONE = ["disabled", "enabled", "signedOut", "twoFactorReset", "twoFactorWasOff", "mailSent"] as const;
type Done = (typeof DONE)[number];

async function renderUser(
  req: Request,
  res: Response,
  deps: PagesDeps,
  user: UserRecord,
  status: number,
  extra: { notice?: string; problem?: { text: string } } = {},
): Promise<void> {
  const ui = pageUi(req, deps.config);
  const ids = await deps.oauth.consents(user.id);
  const consentApps = await Promise.all(ids.map((id) => deps.apps.byClientId(id)));
  const last = await deps.audit.list({ userId: user.id, types: ["signin.succeeded"], limit: 1 });
  const details = {
    user: { ...row(user), createdAt: user.createdAt },
    twoFactor: await deps.twoFactor.isOn(user.id),
    passkeys: (await deps.passkeys.list(user.id)).map((k) => k.name),
    sessions: (await deps.accountLife.sessions(user.id)).map((s) => ({
      id: s.id,
      browser: browserSummary(s.userAgent),
      address: s.address,
      lastSeenAt: s.lastSeenAt,
    })),
    consents: consentApps.flatMap((a) => (a ? [a.name] : [])),
    apps: (await deps.apps.listByOwner(user.id)).map((a) => a.name),
    groups: await deps.groups.of(user.id),
    lastSignIn: last.records[0]?.time,
  };
  sendPage(res, status, AdminUserPage({ ui, user: adminOf(res), csrf: await csrfToken(req), details, ...extra }));
}

/** GET /admin/users/:id: the user's page (with what the last action did, ?done=…). */
function userPage(deps: PagesDeps): RequestHandler {
  return page(async (req, res) => {
    const user = await target(req, res, deps);
    if (!user) return;
    const done = param(req, "done");
    const ui = pageUi(req, deps.config);
    const notice = (DONE as readonly string[]).includes(done) ? ui.t(`adminUsers.done.${done as Done}`) : undefined;
    await renderUser(req, res, deps, user, 200, notice ? { notice } : {});
  });
}

type Outcome = { done: Done } | { problem: string; status: number };

/** An action: the user (404 when none), what it does, the audit record, and the page after it. */
function action(
  deps: PagesDeps,
  opts: { type?: AuditType; notSelf?: boolean },
  run: (user: UserRecord, req: Request, admin: UserRecord) => Promise<Outcome & { type?: AuditType | undefined }>,
): RequestHandler[] {
  return [
    ...adminAction(deps, (req) => userUrl(String(req.params.id ?? ""))),
    page(async (req, res) => {
      const user = await target(req, res, deps);
      if (!user) return;
      const admin = adminOf(res);
      const ui = pageUi(req, deps.config);
      if (opts.notSelf && user.id === admin.id) {
        return renderUser(req, res, deps, user, 409, { problem: { text: ui.t("adminUsers.self") } });
      }
      const outcome = await run(user, req, admin);
      const type = outcome.type ?? opts.type;
      if (type) {
        deps.audit.record({
          type,
          userId: user.id,
          username: user.username,
          actor: { kind: "admin", id: admin.id },
          origin: changeOrigin(req),
        });
      }
      if ("problem" in outcome)
        return renderUser(req, res, deps, user, outcome.status, { problem: { text: outcome.problem } });
      res.redirect(303, `${userUrl(user.id)}?done=${outcome.done}`);
    }),
  ];
}

/** GET /admin/users/:id/delete: the confirm step. */
function deletePage(deps: PagesDeps): RequestHandler {
  return page(async (req, res) => {
    const user = await target(req, res, deps);
    if (!user) return;
    const ui = pageUi(req, deps.config);
    sendPage(res, 200, AdminUserDeletePage({ ui, user: adminOf(res), csrf: await csrfToken(req), target: row(user) }));
  });
}

/** POST /admin/users/:id/delete (confirm=yes): the account and everything it owns; then the list. */
function deleteUser(deps: PagesDeps): RequestHandler[] {
  return [
    ...adminAction(deps, (req) => userUrl(String(req.params.id ?? ""))),
    page(async (req, res) => {
      const user = await target(req, res, deps);
      if (!user) return;
      const admin = adminOf(res);
      const ui = pageUi(req, deps.config);
      if (user.id === admin.id) {
        return renderUser(req, res, deps, user, 409, { problem: { text: ui.t("adminUsers.self") } });
      }
      if (field(req, "confirm") !== "yes") return res.redirect(303, `${userUrl(user.id)}/delete`);
      // Recorded by the deletion, with the admin as actor and without naming the deleted account.
      await deps.accountLife.deleteAccount(user, changeOrigin(req), { kind: "admin", id: admin.id });
      const signed = { ui, user: admin, csrf: await csrfToken(req) };
      const users = await deps.accounts.list({ limit: USERS_PAGE });
      const next = users.length === USERS_PAGE ? users.at(-1)!.username : undefined;
      sendPage(
        res,
        200,
        AdminUsersPage({
          ...signed,
          query: "",
          users: users.map(row),
          next,
          later: false,
          notice: ui.t("adminUsers.done.deleted", { name: user.username }),
        }),
      );
    }),
  ];
}

/** Mounts /admin/users and its actions (pages/index.ts). */
export function adminUsersRoutes(router: Router, deps: PagesDeps): void {
  const gate = adminOnly(deps);
  route(router, "/admin/users", { get: [gate, usersPage(deps)] });
  route(router, "/admin/users/:id", { get: [gate, userPage(deps)] });
  route(router, "/admin/users/:id/delete", { get: [gate, deletePage(deps)], post: deleteUser(deps) });
  const origin = (req: Request) => changeOrigin(req);
  route(router, "/admin/users/:id/disable", {
    // Recorded by disable() itself, once per real change, with the admin as actor.
    post: action(deps, { notSelf: true }, async (user, req, admin) => {
      await deps.accountLife.disable(user, origin(req), { kind: "admin", id: admin.id });
      return { done: "disabled" };
    }),
  });
  route(router, "/admin/users/:id/enable", {
    post: action(deps, {}, async (user, req, admin) => {
      await deps.accountLife.enable(user, origin(req), { kind: "admin", id: admin.id });
      return { done: "enabled" };
    }),
  });
  route(router, "/admin/users/:id/signout", {
    post: action(deps, { type: "user.signed_out" }, async (user) => {
      await deps.accountLife.signOutEverywhere(user.id);
      return { done: "signedOut" };
    }),
  });
  route(router, "/admin/users/:id/reset-2fa", {
    post: action(deps, {}, async (user) =>
      (await deps.twoFactor.reset(user.id))
        ? { done: "twoFactorReset", type: "user.two_factor_reset" }
        : { done: "twoFactorWasOff" },
    ),
  });
  route(router, "/admin/users/:id/reset-mail", {
    post: action(deps, {}, async (user, req) => {
      const ui = pageUi(req, deps.config);
      const sent = await deps.email.sendResetFor(user);
      if (sent === "sent") return { done: "mailSent", type: "user.reset_mail_sent" };
      const problem =
        sent === "no-mail"
          ? ui.t("adminUsers.noMail", { service: deps.config.serviceName })
          : ui.t("adminUsers.noAddress");
      return { problem, status: 409 };
    }),
  });
}
