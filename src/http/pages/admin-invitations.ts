// {auth_url}/admin/invitations (docs/pages.md#invitations, CONTRACT §14 "Sign-up policy"): an admin
// makes a single-use sign-up link (optionally for one address), shown once on the answer to the
// form and never again (only its token's hash is stored), sees the pending ones and revokes them.
// The page passes adminOnly; each form the adminAction guards (CSRF, the gate, a fresh "Confirm it's
// you"); each action is in the audit log (invitation.created / .revoked), never with the link.
import type { Request, RequestHandler, Response, Router } from "express";
import { FormError } from "../../domain/accounts.js";
import { BY_OPERATOR } from "../../domain/invitations.js";
import { AdminInvitationsPage, type InvitationRow } from "../../views/admin-invitations.js";
import { route } from "../route.js";
import { adminAction, adminOf, adminOnly } from "./admin.js";
import { field, page, type PagesDeps } from "./context.js";
import { sendPage } from "./send-page.js";
import { csrfToken } from "./session.js";
import { pageUi } from "./ui.js";
import { changeOrigin } from "./user-agent.js";

const PATH = "/admin/invitations";

type Extra = { link?: string; notice?: string; problem?: { text: string; field?: string | undefined }; email?: string };

/** The page: the pending invitations (makers by username), and what the last action gave. */
async function show(deps: PagesDeps, req: Request, res: Response, status: number, extra: Extra = {}): Promise<void> {
  const ui = pageUi(req, deps.config);
  const list = await deps.invitations.list();
  const names = new Map<string, string>();
  for (const by of new Set(list.map((r) => r.createdBy))) {
    const user = by === BY_OPERATOR ? null : await deps.accounts.byId(by);
    names.set(by, user ? user.username : by === BY_OPERATOR ? ui.t("adminInvitations.operator") : "?");
  }
  const invitations: InvitationRow[] = list.map((r) => ({
    id: r.id,
    email: r.email,
    createdBy: names.get(r.createdBy) ?? "?",
    createdAt: r.createdAt,
    expiresAt: r.expiresAt,
  }));
  res.setHeader("Cache-Control", "no-store"); // the link, shown once, stays out of caches
  sendPage(
    res,
    status,
    AdminInvitationsPage({
      ui,
      user: adminOf(res),
      csrf: await csrfToken(req),
      invitations,
      inviteMode: deps.config.signup === "invite",
      ...extra,
    }),
  );
}

/** POST /admin/invitations (email optional): makes one; the page shows its link this once. */
function create(deps: PagesDeps): RequestHandler {
  return page(async (req, res) => {
    const admin = adminOf(res);
    const email = field(req, "email");
    const ui = pageUi(req, deps.config);
    try {
      const { link } = await deps.invitations.create({ createdBy: admin.id, email });
      deps.audit.record({
        type: "invitation.created",
        actor: { kind: "admin", id: admin.id },
        origin: changeOrigin(req),
      });
      await show(deps, req, res, 201, { link });
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      await show(deps, req, res, err.status, { problem: ui.message(err), email: email.slice(0, 254) });
    }
  });
}

/** POST /admin/invitations/:id/revoke: its link stops working; an unknown one is a 404 (nothing changes). */
function revoke(deps: PagesDeps): RequestHandler {
  return page(async (req, res) => {
    const admin = adminOf(res);
    const ui = pageUi(req, deps.config);
    const gone = await deps.invitations.revoke(String(req.params.id ?? ""));
    if (!gone) return show(deps, req, res, 404, { problem: { text: ui.t("adminInvitations.gone") } });
    deps.audit.record({
      type: "invitation.revoked",
      actor: { kind: "admin", id: admin.id },
      origin: changeOrigin(req),
    });
    await show(deps, req, res, 200, { notice: ui.t("adminInvitations.revoked") });
  });
}

/** Mounts /admin/invitations and its actions (pages/index.ts). */
export function adminInvitationsRoutes(router: Router, deps: PagesDeps): void {
  route(router, PATH, {
    get: [adminOnly(deps), page((req, res) => show(deps, req, res, 200))],
    post: [...adminAction(deps, PATH), create(deps)],
  });
  route(router, `${PATH}/:id/revoke`, { post: [...adminAction(deps, PATH), revoke(deps)] });
}
