// {auth_url}/admin/apps (docs/pages.md#administration, CONTRACT §14 "Apps"): every app, searched by
// name or client id in pages of 50, and an app's page with the admin's forms: edit (the owner's
// form and checks: Apps.update), first-party on or off, disabled on or off, the groups it is
// restricted to, and the scopes of its client credentials tokens. The client id, secret, consents and tokens stay. Every page passes adminOnly;
// every action the adminAction guards (CSRF, the gate, a fresh "Confirm it's you" coming back to
// the app's page), and each is in the audit log with the admin as actor.
import type { Request, RequestHandler, Response, Router } from "express";
import { FormError } from "../../domain/accounts.js";
import { checkM2mScopes } from "../../domain/client-credentials.js";
import type { AuditType } from "../../domain/audit.js";
import { GroupError } from "../../domain/groups.js";
import type { AppRecord, UserRecord } from "../../store/port.js";
import { AdminAppPage, AdminAppsPage, type AppRow } from "../../views/admin-apps.js";
import type { EditForm } from "../../views/app-edit.js";
import { ErrorPage } from "../../views/consent.js";
import type { FormProblem } from "../../views/layout.js";
import { route } from "../route.js";
import { adminAction, adminOf, adminOnly } from "./admin.js";
import { field, page, type PagesDeps } from "./context.js";
import { sendPage } from "./send-page.js";
import { csrfToken } from "./session.js";
import { pageUi } from "./ui.js";
import { changeOrigin } from "./user-agent.js";

export const APPS_PAGE = 50;

const appUrl = (clientId: string) => `/admin/apps/${encodeURIComponent(clientId)}`;

/** The first value of a query parameter, or "". */
function param(req: Request, name: string): string {
  const v: unknown = (req.query as Record<string, unknown>)[name];
  const first = Array.isArray(v) ? (v as unknown[])[0] : v;
  return typeof first === "string" ? first : "";
}

/** Every string value of a form field (a multi-line field split on line breaks). */
function values(req: Request, name: string, split = false): string[] {
  const v: unknown = (req.body as Record<string, unknown> | undefined)?.[name];
  const list = (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === "string");
  return split ? list.flatMap((s) => s.split(/\r?\n/)) : list;
}

/** The owners' usernames of a page of apps (null: the owner is gone). */
async function owners(deps: PagesDeps, apps: AppRecord[]): Promise<Map<string, string | null>> {
  const ids = [...new Set(apps.map((a) => a.ownerId))];
  const users = await Promise.all(ids.map((id) => deps.accounts.byId(id)));
  return new Map(ids.map((id, i) => [id, users[i]?.username ?? null]));
}

const row = (app: AppRecord, owner: string | null): AppRow => ({
  clientId: app.clientId,
  name: app.name,
  owner,
  trusted: app.trusted === true,
  disabled: app.disabled === true,
  groups: app.groups ?? [],
});

/** GET /admin/apps[?q=&after=]: the list. A query too long is a form error (400), nothing searched. */
function appsPage(deps: PagesDeps): RequestHandler {
  return page(async (req, res) => {
    const ui = pageUi(req, deps.config);
    const signed = { ui, user: adminOf(res), csrf: await csrfToken(req) };
    const query = param(req, "q");
    const after = param(req, "after").slice(0, 64) || undefined;
    try {
      const apps = await deps.apps.search({ query, after, limit: APPS_PAGE });
      const names = await owners(deps, apps);
      const next = apps.length === APPS_PAGE ? apps.at(-1)!.clientId : undefined;
      const rows = apps.map((a) => row(a, names.get(a.ownerId) ?? null));
      sendPage(res, 200, AdminAppsPage({ ...signed, query, apps: rows, next, later: !!after }));
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      const problem = { ...ui.message(err), field: "q" };
      sendPage(res, err.status, AdminAppsPage({ ...signed, query: "", apps: [], later: false, problem }));
    }
  });
}

/** The app of :clientId, or a 404 page (answered here). */
async function target(req: Request, res: Response, deps: PagesDeps): Promise<AppRecord | undefined> {
  const app = await deps.apps.byClientId(String(req.params.clientId ?? ""));
  if (app) return app;
  const ui = pageUi(req, deps.config);
  sendPage(res, 404, ErrorPage({ ui, title: ui.t("error.generic"), message: ui.t("adminApps.notFound") }));
  return undefined;
}

async function renderApp(
  req: Request,
  res: Response,
  deps: PagesDeps,
  app: AppRecord,
  status: number,
  extra: { notice?: string; problem?: FormProblem; editForm?: EditForm; groupsProblem?: FormProblem } = {},
): Promise<void> {
  const ui = pageUi(req, deps.config);
  const owner = await deps.accounts.byId(app.ownerId);
  const groups = (await deps.groups.list()).map((g) => g.name);
  sendPage(
    res,
    status,
    AdminAppPage({
      ui,
      user: adminOf(res),
      csrf: await csrfToken(req),
      app,
      owner: owner?.username ?? null,
      groups,
      ...extra,
    }),
  );
}

/** What the page says after an action (?done=…): only these. */
const DONE = ["edited", "trusted", "untrusted", "disabled", "enabled", "groups", "m2m"] as const;
type Done = (typeof DONE)[number];

/** GET /admin/apps/:clientId: the app's page (with what the last action did, ?done=…). */
function appPage(deps: PagesDeps): RequestHandler {
  return page(async (req, res) => {
    const app = await target(req, res, deps);
    if (!app) return;
    const done = param(req, "done");
    const ui = pageUi(req, deps.config);
    const notice = (DONE as readonly string[]).includes(done) ? ui.t(`adminApps.done.${done as Done}`) : undefined;
    await renderApp(req, res, deps, app, 200, notice ? { notice } : {});
  });
}

type Change = Parameters<PagesDeps["apps"]["update"]>[1];

/**
 * An action: the app (404 when none), the change it makes (a FormError or GroupError refuses it:
 * the page again with the reason, nothing changed), the audit records, and the page after it.
 */
function action(
  deps: PagesDeps,
  change: (
    req: Request,
    app: AppRecord,
  ) => Promise<{ change: Change; done: Done; types: AuditType[] } | { refused: FormProblem; status: number }>,
  refusedForm?: (req: Request, app: AppRecord) => EditForm,
): RequestHandler[] {
  return [
    ...adminAction(deps, (req) => appUrl(String(req.params.clientId ?? ""))),
    page(async (req, res) => {
      const app = await target(req, res, deps);
      if (!app) return;
      const admin: UserRecord = adminOf(res);
      const ui = pageUi(req, deps.config);
      const planned = await change(req, app);
      if ("refused" in planned)
        return renderApp(req, res, deps, app, planned.status, { groupsProblem: planned.refused });
      try {
        await deps.apps.update(app, planned.change);
      } catch (err) {
        if (!(err instanceof FormError)) throw err;
        const problem = ui.message(err);
        return renderApp(req, res, deps, app, err.status, {
          problem,
          ...(refusedForm ? { editForm: refusedForm(req, app) } : {}),
        });
      }
      for (const type of planned.types) {
        deps.audit.record({
          type,
          userId: app.ownerId,
          clientId: app.clientId,
          actor: { kind: "admin", id: admin.id },
          origin: changeOrigin(req),
        });
      }
      res.redirect(303, `${appUrl(app.clientId)}?done=${planned.done}`);
    }),
  ];
}

/** An on/off form's value ("on" or "off"); anything else is neither. */
function onOff(req: Request): boolean | undefined {
  const v = field(req, "value");
  return v === "on" ? true : v === "off" ? false : undefined;
}

/** Mounts /admin/apps and its actions (pages/index.ts). */
export function adminAppsRoutes(router: Router, deps: PagesDeps): void {
  const gate = adminOnly(deps);
  route(router, "/admin/apps", { get: [gate, appsPage(deps)] });
  route(router, "/admin/apps/:clientId", { get: [gate, appPage(deps)] });
  const refusedOn = (ui: ReturnType<typeof pageUi>) => ({ refused: { text: ui.t("adminApps.onOff") }, status: 400 });
  route(router, "/admin/apps/:clientId/edit", {
    post: action(
      deps,
      async (req) => ({
        change: {
          name: field(req, "name"),
          redirectUris: values(req, "redirect_uri", true),
          postLogoutRedirectUris: values(req, "post_logout_redirect_uri", true),
          homepage: field(req, "homepage"),
        },
        done: "edited",
        types: ["app.updated"],
      }),
      (req, app) => ({
        clientId: app.clientId,
        name: field(req, "name").slice(0, 200),
        redirectUris: values(req, "redirect_uri", true).join("\n").slice(0, 8000),
        postLogoutRedirectUris: values(req, "post_logout_redirect_uri", true).join("\n").slice(0, 8000),
        homepage: field(req, "homepage").slice(0, 2000),
      }),
    ),
  });
  route(router, "/admin/apps/:clientId/trusted", {
    post: action(deps, async (req, app) => {
      const on = onOff(req);
      if (on === undefined) return refusedOn(pageUi(req, deps.config));
      const types: AuditType[] = on === (app.trusted === true) ? [] : [on ? "app.trusted" : "app.untrusted"];
      return { change: { trusted: on }, done: on ? "trusted" : "untrusted", types };
    }),
  });
  route(router, "/admin/apps/:clientId/disabled", {
    post: action(deps, async (req, app) => {
      const on = onOff(req);
      if (on === undefined) return refusedOn(pageUi(req, deps.config));
      const types: AuditType[] = on === (app.disabled === true) ? [] : [on ? "app.disabled" : "app.enabled"];
      return { change: { disabled: on }, done: on ? "disabled" : "enabled", types };
    }),
  });
  // The scopes of its client credentials tokens ("" clears them; a public client gets none).
  route(router, "/admin/apps/:clientId/m2m", {
    post: action(deps, async (req, app) => {
      const ui = pageUi(req, deps.config);
      try {
        const m2mScopes = checkM2mScopes(field(req, "scopes"));
        if (m2mScopes.length > 0 && app.public) throw new FormError("err.m2mPublic");
        return { change: { m2mScopes }, done: "m2m", types: ["app.updated"] };
      } catch (err) {
        if (!(err instanceof FormError)) throw err;
        return { refused: ui.message(err), status: 400 };
      }
    }),
  });
  route(router, "/admin/apps/:clientId/groups", {
    post: action(deps, async (req) => {
      const ui = pageUi(req, deps.config);
      const chosen = values(req, "group").filter((g) => g !== "");
      if (chosen.length > 100) return { refused: { text: ui.t("adminApps.tooManyGroups") }, status: 400 };
      try {
        const groups = await deps.groups.existingAll(chosen);
        return { change: { groups }, done: "groups", types: ["app.updated"] };
      } catch (err) {
        if (!(err instanceof GroupError)) throw err;
        return { refused: { text: ui.t("adminApps.unknownGroup") }, status: 400 };
      }
    }),
  });
}
