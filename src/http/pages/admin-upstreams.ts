// {auth_url}/admin/upstreams (docs/pages.md#administration, docs/upstream-providers.md#on-admin):
// the other sign-in services ("Continue with …"). The settings' ones are listed read-only; an admin
// adds one (checked as the settings are: domain/upstream-providers.ts), changes its name, client
// id, issuer (oidc) or secret (kept when none is typed), and removes it after a confirm step that
// says how many accounts are linked through it. Every page passes adminOnly, every action the
// adminAction guards (CSRF, the gate, a fresh "Confirm it's you"), and each change is in the audit
// log (upstream.*, never the secret). A refused form says which field, and changes nothing.
import type { Request, RequestHandler, Response, Router } from "express";
import type { AuditEvent } from "../../domain/audit.js";
import type { Upstream } from "../../config/upstreams.js";
import { UpstreamFormError, type UpstreamField, type UpstreamInput } from "../../domain/upstream-providers.js";
import type { StoredUpstreamRecord } from "../../store/port.js";
import {
  AdminUpstreamPage,
  AdminUpstreamRemovePage,
  AdminUpstreamsPage,
  type UpstreamRow,
  type UpstreamTyped,
} from "../../views/admin-upstreams.js";
import { ErrorPage } from "../../views/consent.js";
import type { FormProblem } from "../../views/layout.js";
import { route } from "../route.js";
import { adminAction, adminOf, adminOnly } from "./admin.js";
import { field, page, type PagesDeps } from "./context.js";
import { sendPage } from "./send-page.js";
import { csrfToken } from "./session.js";
import { pageUi } from "./ui.js";
import { changeOrigin } from "./user-agent.js";

const upstreamUrl = (id: string) => `/admin/upstreams/${encodeURIComponent(id)}`;
const FIELDS: readonly UpstreamField[] = ["id", "kind", "name", "issuer", "api_url", "client_id", "client_secret"];

function record(req: Request, res: Response, deps: PagesDeps, e: Omit<AuditEvent, "actor" | "origin">): void {
  deps.audit.record({ ...e, actor: { kind: "admin", id: adminOf(res).id }, origin: changeOrigin(req) });
}

const callbackOf = (deps: PagesDeps, id: string) => `${deps.config.authUrl}/upstream/${id}/callback`;

function row(deps: PagesDeps, u: Upstream | StoredUpstreamRecord): UpstreamRow {
  return {
    id: u.id,
    kind: u.kind,
    name: u.name,
    issuer: u.issuer,
    apiUrl: u.apiUrl,
    clientId: u.clientId,
    callback: callbackOf(deps, u.id),
  };
}

const storedRow = (deps: PagesDeps, r: StoredUpstreamRecord): UpstreamRow => ({
  ...row(deps, r),
  unreadable: deps.upstreamProviders.secretOf(r) === null,
  shadowed: deps.upstreamProviders.isSetting(r.id),
});

/** The form's fields as sent (each cut to a length no field takes, so a huge one costs nothing). */
function input(req: Request): UpstreamInput {
  const out: UpstreamInput = {};
  for (const f of FIELDS) out[f] = field(req, f).slice(0, 2048);
  return out;
}

/** What the form shows again after a refusal: what was typed, never the secret. */
function typedOf(i: UpstreamInput): UpstreamTyped {
  const { client_secret: _secret, ...rest } = i;
  const out: UpstreamTyped = {};
  for (const [k, v] of Object.entries(rest)) if (v) out[k as keyof UpstreamTyped] = v.slice(0, 512);
  return out;
}

function problemOf(req: Request, deps: PagesDeps, err: UpstreamFormError, id: string): FormProblem {
  const ui = pageUi(req, deps.config);
  if (err.reason === "taken") return { text: ui.t("adminUpstreams.taken", { id }), field: "id" };
  return { text: ui.t(`adminUpstreams.bad.${err.field}`), field: err.field };
}

async function renderList(
  req: Request,
  res: Response,
  deps: PagesDeps,
  status: number,
  extra: { notice?: string; problem?: FormProblem; typed?: UpstreamTyped } = {},
): Promise<void> {
  const ui = pageUi(req, deps.config);
  const stored = await deps.upstreamProviders.listStored();
  sendPage(
    res,
    status,
    AdminUpstreamsPage({
      ui,
      user: adminOf(res),
      csrf: await csrfToken(req),
      fromSettings: deps.upstreamProviders.fromSettings.map((u) => row(deps, u)),
      stored: stored.map((r) => storedRow(deps, r)),
      callbackPattern: callbackOf(deps, "<id>"),
      ...extra,
    }),
  );
}

/** The stored provider :id names, or a 404 page (answered here). */
async function target(req: Request, res: Response, deps: PagesDeps): Promise<StoredUpstreamRecord | undefined> {
  const found = await deps.upstreamProviders.get(String(req.params.id ?? "").slice(0, 64));
  if (found) return found;
  const ui = pageUi(req, deps.config);
  sendPage(res, 404, ErrorPage({ ui, title: ui.t("error.generic"), message: ui.t("adminUpstreams.notFound") }));
  return undefined;
}

async function renderOne(
  req: Request,
  res: Response,
  deps: PagesDeps,
  r: StoredUpstreamRecord,
  status: number,
  extra: { notice?: string; problem?: FormProblem; typed?: UpstreamTyped } = {},
): Promise<void> {
  const ui = pageUi(req, deps.config);
  const upstream = storedRow(deps, r);
  sendPage(res, status, AdminUpstreamPage({ ui, user: adminOf(res), csrf: await csrfToken(req), upstream, ...extra }));
}

const DONE = ["added", "changed"] as const;

function doneNotice(req: Request, deps: PagesDeps): string | undefined {
  const v: unknown = (req.query as Record<string, unknown>).done;
  const ui = pageUi(req, deps.config);
  return typeof v === "string" && (DONE as readonly string[]).includes(v)
    ? ui.t(`adminUpstreams.done.${v as (typeof DONE)[number]}`)
    : undefined;
}

/** The page of the provider a request names (where a confirm step comes back to). */
const upstreamOfRequest = (req: Request): string => upstreamUrl(String(req.params.id ?? "").slice(0, 64));

/** POST /admin/upstreams: adds a provider; its page (with the callback to register) after. */
function add(deps: PagesDeps): RequestHandler {
  return page(async (req, res) => {
    const i = input(req);
    let added: StoredUpstreamRecord;
    try {
      added = await deps.upstreamProviders.add(i);
    } catch (err) {
      if (!(err instanceof UpstreamFormError)) throw err;
      const problem = problemOf(req, deps, err, (i.id ?? "").trim().toLowerCase().slice(0, 32));
      return renderList(req, res, deps, err.reason === "taken" ? 409 : 400, { problem, typed: typedOf(i) });
    }
    record(req, res, deps, { type: "upstream.added", upstream: added.id });
    res.redirect(303, `${upstreamUrl(added.id)}?done=added`);
  });
}

/** POST /admin/upstreams/:id: changes a stored provider. */
function change(deps: PagesDeps): RequestHandler {
  return page(async (req, res) => {
    const was = await target(req, res, deps);
    if (!was) return;
    const i = input(req);
    let changed: StoredUpstreamRecord | null;
    try {
      changed = await deps.upstreamProviders.change(was.id, i);
    } catch (err) {
      if (!(err instanceof UpstreamFormError)) throw err;
      const problem = problemOf(req, deps, err, was.id);
      return renderOne(req, res, deps, was, 400, { problem, typed: typedOf(i) });
    }
    if (!changed) {
      const ui = pageUi(req, deps.config);
      return sendPage(
        res,
        404,
        ErrorPage({ ui, title: ui.t("error.generic"), message: ui.t("adminUpstreams.notFound") }),
      );
    }
    record(req, res, deps, { type: "upstream.changed", upstream: was.id });
    res.redirect(303, `${upstreamUrl(was.id)}?done=changed`);
  });
}

/** The ids offered now (the settings' and the usable stored ones): another way in for a linked account. */
const offeredIds = async (deps: PagesDeps) => (await deps.upstreams.list()).map((u) => u.id);

/** Mounts /admin/upstreams and its actions (pages/index.ts). */
export function adminUpstreamsRoutes(router: Router, deps: PagesDeps): void {
  const gate = adminOnly(deps);
  route(router, "/admin/upstreams", {
    get: [
      gate,
      page(async (req, res) => {
        const notice = doneNotice(req, deps);
        await renderList(req, res, deps, 200, notice ? { notice } : {});
      }),
    ],
    post: [...adminAction(deps, "/admin/upstreams"), add(deps)],
  });
  route(router, "/admin/upstreams/:id", {
    get: [
      gate,
      page(async (req, res) => {
        const r = await target(req, res, deps);
        if (!r) return;
        const notice = doneNotice(req, deps);
        await renderOne(req, res, deps, r, 200, notice ? { notice } : {});
      }),
    ],
    post: [...adminAction(deps, upstreamOfRequest), change(deps)],
  });
  route(router, "/admin/upstreams/:id/remove", {
    get: [
      gate,
      page(async (req, res) => {
        const r = await target(req, res, deps);
        if (!r) return;
        const use = await deps.upstreamProviders.use(r.id, await offeredIds(deps));
        const ui = pageUi(req, deps.config);
        const csrf = await csrfToken(req);
        sendPage(res, 200, AdminUpstreamRemovePage({ ui, user: adminOf(res), csrf, id: r.id, name: r.name, ...use }));
      }),
    ],
    post: [
      ...adminAction(deps, upstreamOfRequest),
      page(async (req, res) => {
        const r = await target(req, res, deps);
        if (!r) return;
        if (field(req, "confirm") !== "yes") return res.redirect(303, `${upstreamUrl(r.id)}/remove`);
        const ui = pageUi(req, deps.config);
        const notice = ui.t("adminUpstreams.done.removed", { name: r.name });
        // Removed at the same moment by another admin: gone all the same, recorded once.
        if (await deps.upstreamProviders.remove(r.id))
          record(req, res, deps, { type: "upstream.removed", upstream: r.id });
        await renderList(req, res, deps, 200, { notice });
      }),
    ],
  });
}
