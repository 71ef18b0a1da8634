// {auth_url}/admin/groups (docs/pages.md#administration, CONTRACT §14 "Groups"): every group with
// its member count and a form to create one (the CLI's name rules: domain/groups.ts), a group's
// page with its members (add one by username, remove one), and the confirm step before deleting
// it. Every page passes adminOnly; every action the adminAction guards, and each is in the audit
// log (group.*) with the admin as actor. A refusal (a bad or taken name, an unknown user) says so
// in the page's language and changes nothing.
import type { Request, RequestHandler, Response, Router } from "express";
import type { AuditEvent } from "../../domain/audit.js";
import { GroupError, groupName } from "../../domain/groups.js";
import type { UserRecord } from "../../store/port.js";
import { AdminGroupDeletePage, AdminGroupPage, AdminGroupsPage } from "../../views/admin-groups.js";
import { ErrorPage } from "../../views/consent.js";
import type { FormProblem } from "../../views/layout.js";
import { route } from "../route.js";
import { adminAction, adminOf, adminOnly } from "./admin.js";
import { field, page, type PagesDeps } from "./context.js";
import { sendPage } from "./send-page.js";
import { csrfToken } from "./session.js";
import { pageUi } from "./ui.js";
import { changeOrigin } from "./user-agent.js";

const groupUrl = (name: string) => `/admin/groups/${encodeURIComponent(name)}`;

function record(req: Request, res: Response, deps: PagesDeps, e: Omit<AuditEvent, "actor" | "origin">): void {
  deps.audit.record({ ...e, actor: { kind: "admin", id: adminOf(res).id }, origin: changeOrigin(req) });
}

async function renderList(
  req: Request,
  res: Response,
  deps: PagesDeps,
  status: number,
  extra: { notice?: string; problem?: FormProblem; typed?: string } = {},
): Promise<void> {
  const ui = pageUi(req, deps.config);
  const groups = (await deps.groups.list()).map((g) => ({ name: g.name, members: g.members }));
  sendPage(res, status, AdminGroupsPage({ ui, user: adminOf(res), csrf: await csrfToken(req), groups, ...extra }));
}

/** The group of :name with its members, or a 404 page (answered here). */
async function target(
  req: Request,
  res: Response,
  deps: PagesDeps,
): Promise<{ name: string; members: Array<{ id: string; username: string }> } | undefined> {
  const name = groupName(String(req.params.name ?? "").slice(0, 100));
  if (name !== null) {
    try {
      return { name, members: await deps.groups.members(name) };
    } catch (err) {
      if (!(err instanceof GroupError)) throw err;
    }
  }
  const ui = pageUi(req, deps.config);
  sendPage(res, 404, ErrorPage({ ui, title: ui.t("error.generic"), message: ui.t("adminGroups.notFound") }));
  return undefined;
}

async function renderGroup(
  req: Request,
  res: Response,
  deps: PagesDeps,
  group: { name: string; members: Array<{ id: string; username: string }> },
  status: number,
  extra: { notice?: string; problem?: FormProblem } = {},
): Promise<void> {
  const ui = pageUi(req, deps.config);
  sendPage(res, status, AdminGroupPage({ ui, user: adminOf(res), csrf: await csrfToken(req), group, ...extra }));
}

/** The page of the group a request names (where a confirm step comes back to). */
const groupOfRequest = (req: Request): string => groupUrl(String(req.params.name ?? "").slice(0, 100));

const DONE = ["created", "added", "already", "removed", "notMember"] as const;
type Done = (typeof DONE)[number];

function doneNotice(req: Request, deps: PagesDeps): string | undefined {
  const v: unknown = (req.query as Record<string, unknown>).done;
  const ui = pageUi(req, deps.config);
  return typeof v === "string" && (DONE as readonly string[]).includes(v)
    ? ui.t(`adminGroups.done.${v as Done}`)
    : undefined;
}

/** The user a form names (username, case-folded), or null. */
async function userNamed(deps: PagesDeps, raw: string): Promise<UserRecord | null> {
  const username = raw.trim().toLowerCase();
  if (username === "" || username.length > 64) return null;
  return deps.accounts.byUsername(username);
}

/** What adding and removing a member differ in: how the form names the user, the change, its record and notices. */
const MEMBERSHIP = {
  add: {
    field: "username",
    user: (deps: PagesDeps, req: Request) => userNamed(deps, field(req, "username")),
    change: async (deps: PagesDeps, group: string, user: UserRecord) => (await deps.groups.add(group, user)).added,
    type: "group.member_added",
    done: { changed: "added", same: "already" },
  },
  remove: {
    field: undefined,
    user: async (deps: PagesDeps, req: Request) => {
      const id = field(req, "user").slice(0, 100);
      return id ? deps.accounts.byId(id) : null;
    },
    change: async (deps: PagesDeps, group: string, user: UserRecord) => (await deps.groups.remove(group, user)).removed,
    type: "group.member_removed",
    done: { changed: "removed", same: "notMember" },
  },
} as const;

/**
 * POST /admin/groups/:name/members (the form names a username) and …/remove (it names a user id):
 * the change, its audit record when it changed something, and the group's page after it.
 */
function membership(deps: PagesDeps, kind: keyof typeof MEMBERSHIP): RequestHandler {
  const how = MEMBERSHIP[kind];
  return page(async (req, res) => {
    const group = await target(req, res, deps);
    if (!group) return;
    const ui = pageUi(req, deps.config);
    const user = await how.user(deps, req);
    if (!user) {
      const problem = { text: ui.t("adminGroups.unknownUser"), ...(how.field ? { field: how.field } : {}) };
      return renderGroup(req, res, deps, group, 400, { problem });
    }
    let changed: boolean;
    try {
      changed = await how.change(deps, group.name, user);
    } catch (err) {
      if (!(err instanceof GroupError)) throw err;
      return renderGroup(req, res, deps, group, 404, { problem: { text: ui.t("adminGroups.notFound") } });
    }
    if (changed)
      record(req, res, deps, { type: how.type, group: group.name, userId: user.id, username: user.username });
    res.redirect(303, `${groupUrl(group.name)}?done=${changed ? how.done.changed : how.done.same}`);
  });
}

/** Mounts /admin/groups and its actions (pages/index.ts). */
export function adminGroupsRoutes(router: Router, deps: PagesDeps): void {
  const gate = adminOnly(deps);
  route(router, "/admin/groups", {
    get: [
      gate,
      page(async (req, res) => {
        const notice = doneNotice(req, deps);
        await renderList(req, res, deps, 200, notice ? { notice } : {});
      }),
    ],
    post: [
      ...adminAction(deps, "/admin/groups"),
      page(async (req, res) => {
        const ui = pageUi(req, deps.config);
        const raw = field(req, "name");
        const typed = raw.slice(0, 64);
        const name = groupName(raw);
        if (name === null) {
          return renderList(req, res, deps, 400, {
            problem: { text: ui.t("adminGroups.badName"), field: "name" },
            typed,
          });
        }
        try {
          await deps.groups.create(name);
        } catch (err) {
          if (!(err instanceof GroupError)) throw err;
          const problem = { text: ui.t("adminGroups.taken", { name }), field: "name" };
          return renderList(req, res, deps, 409, { problem, typed });
        }
        record(req, res, deps, { type: "group.created", group: name });
        res.redirect(303, `${groupUrl(name)}?done=created`);
      }),
    ],
  });
  route(router, "/admin/groups/:name", {
    get: [
      gate,
      page(async (req, res) => {
        const group = await target(req, res, deps);
        if (!group) return;
        const notice = doneNotice(req, deps);
        await renderGroup(req, res, deps, group, 200, notice ? { notice } : {});
      }),
    ],
  });
  route(router, "/admin/groups/:name/members", {
    post: [...adminAction(deps, groupOfRequest), membership(deps, "add")],
  });
  route(router, "/admin/groups/:name/remove", {
    post: [...adminAction(deps, groupOfRequest), membership(deps, "remove")],
  });
  route(router, "/admin/groups/:name/delete", {
    get: [
      gate,
      page(async (req, res) => {
        const group = await target(req, res, deps);
        if (!group) return;
        const ui = pageUi(req, deps.config);
        sendPage(
          res,
          200,
          AdminGroupDeletePage({
            ui,
            user: adminOf(res),
            csrf: await csrfToken(req),
            name: group.name,
            members: group.members.length,
          }),
        );
      }),
    ],
    post: [
      ...adminAction(deps, groupOfRequest),
      page(async (req, res) => {
        const group = await target(req, res, deps);
        if (!group) return;
        if (field(req, "confirm") !== "yes") return res.redirect(303, `${groupUrl(group.name)}/delete`);
        const ui = pageUi(req, deps.config);
        try {
          await deps.groups.delete(group.name);
        } catch (err) {
          if (!(err instanceof GroupError)) throw err; // deleted at the same moment: gone all the same
          return renderList(req, res, deps, 200, { notice: ui.t("adminGroups.done.deleted", { name: group.name }) });
        }
        record(req, res, deps, { type: "group.deleted", group: group.name });
        await renderList(req, res, deps, 200, { notice: ui.t("adminGroups.done.deleted", { name: group.name }) });
      }),
    ],
  });
}
