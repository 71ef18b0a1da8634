// {auth_url}/device (RFC 8628 §3.3; docs/pages.md#device): the user types the code their device
// shows, signs in if needed (coming back here with it), sees the consent page naming the app and
// its scopes, and allows or denies. A code is never decided by a GET (the link in
// verification_uri_complete only fills it in: RFC 8628 §5.4, someone else's link must not connect
// their device to this account). Typed codes that match nothing are limited like passwords
// (domain/device-flow.ts).
import type { Request, Response } from "express";
import { normalizeUserCode, showUserCode } from "../../domain/device-flow.js";
import { mustConfirmEmailFirst } from "../../domain/email-address.js";
import { publicSessionId } from "../../domain/session-ids.js";
import { message } from "../../errors.js";
import type { AppRecord, DeviceCodeRecord, UserRecord } from "../../store/port.js";
import { ConfirmEmailFirstPage, ConsentPage } from "../../views/consent.js";
import { DeviceDonePage, DeviceEntryPage } from "../../views/device.js";
import { currentUser, field, page, queryParam, signInUrl, type PagesDeps } from "./context.js";
import { pictureUrl } from "./pictures.js";
import { sendPage } from "./send-page.js";
import { csrfToken } from "./session.js";
import { pageUi } from "./ui.js";
import { changeOrigin } from "./user-agent.js";

/** The code as typed, kept for the form (bounded; shown as XXXX-XXXX when it is one). */
const shown = (typed: string) => {
  const code = normalizeUserCode(typed);
  return code ? showUserCode(code) : typed.slice(0, 40);
};

async function entry(deps: PagesDeps, req: Request, res: Response, user: UserRecord, value: string, bad = false) {
  const ui = pageUi(req, deps.config);
  const problem = bad ? { text: ui.message(message("err.deviceUserCodeUnknown")).text, field: "user_code" } : undefined;
  sendPage(res, bad ? 400 : 200, DeviceEntryPage({ ui, user, csrf: await csrfToken(req), value, problem }));
}

/** The signed-in user, or undefined after sending them to sign in (back to /device, the code kept). */
async function signedIn(deps: PagesDeps, req: Request, res: Response): Promise<UserRecord | undefined> {
  const user = await currentUser(req, deps);
  if (user) return user;
  const typed = req.method === "GET" ? queryParam(req, "user_code") : field(req, "user_code");
  const back = typed ? `/device?${new URLSearchParams({ user_code: shown(typed) })}` : "/device";
  res.redirect(303, req.method === "GET" ? signInUrl(req) : `/signin?${new URLSearchParams({ return_to: back })}`);
  return undefined;
}

/** The pending request and its app that a typed code names (counted when it names none), or null. */
async function lookUp(deps: PagesDeps, req: Request, typed: string) {
  const record = await deps.oauth.device.find(typed, req.ip ?? "");
  const app = record ? await deps.apps.byClientId(record.clientId) : null;
  return record && app && app.disabled !== true ? { record, app } : null;
}

export function devicePage(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await signedIn(deps, req, res);
    if (user) await entry(deps, req, res, user, shown(queryParam(req, "user_code") ?? ""));
  });
}

/** POST /device: the typed code; the consent page when it names a pending request. */
export function deviceEnter(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await signedIn(deps, req, res);
    if (!user) return;
    const typed = field(req, "user_code");
    const found = await lookUp(deps, req, typed);
    if (!found) return entry(deps, req, res, user, shown(typed), true);
    if (await refused(deps, req, res, user, found.app, typed)) return;
    const ui = pageUi(req, deps.config);
    const code = showUserCode(normalizeUserCode(typed)!); // found: it is a user code
    sendPage(
      res,
      200,
      ConsentPage({
        ui,
        user,
        appName: found.app.name,
        homepage: found.app.homepage,
        publicClient: found.app.public === true,
        pictureUrl: pictureUrl(deps.config.baseUrl, user),
        csrf: await csrfToken(req),
        hidden: { user_code: code },
        scopes: scopesOf(found.record),
        action: "/device/decide",
        note: ui.t("device.checkCode", { code }),
      }),
    );
  });
}

const scopesOf = (record: DeviceCodeRecord) => record.scope ?? ["profile"];

/**
 * An account that must confirm its address first, or an app restricted to groups the user is in
 * none of: the device gets nothing (the latter hears access_denied). True when it answered.
 */
async function refused(deps: PagesDeps, req: Request, res: Response, user: UserRecord, app: AppRecord, typed: string) {
  const ui = pageUi(req, deps.config);
  const csrf = await csrfToken(req);
  if (mustConfirmEmailFirst(user)) {
    sendPage(res, 403, ConfirmEmailFirstPage({ ui, user, appName: app.name, csrf }));
    return true;
  }
  if (await deps.groups.allows(app, user.id)) return false;
  await deps.oauth.device.decide(typed, null);
  sendPage(res, 403, DeviceDonePage({ ui, user, csrf, appName: app.name, allowed: false }));
  return true;
}

/** POST /device/decide: allow or deny the request the code names. */
export function deviceDecide(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await signedIn(deps, req, res);
    if (!user) return;
    const typed = field(req, "user_code");
    const decision = field(req, "decision");
    const found = await lookUp(deps, req, typed);
    if (!found) return entry(deps, req, res, user, shown(typed), true);
    if (await refused(deps, req, res, user, found.app, typed)) return;
    const allowed = decision === "allow";
    if (!allowed && decision !== "deny") return entry(deps, req, res, user, shown(typed));
    const { record, app } = found;
    if (allowed) {
      await deps.oauth.allow(user.id, app.clientId, record.scope);
      deps.audit.record({
        type: "consent.given",
        userId: user.id,
        username: user.username,
        actor: { kind: "user", id: user.id },
        clientId: app.clientId,
        origin: changeOrigin(req),
      });
    }
    const decided = await deps.oauth.device.decide(
      typed,
      allowed
        ? {
            userId: user.id,
            authTime: req.session.authTime ?? Math.floor(Date.now() / 1000),
            amr: req.session.amr ?? ["pwd"],
            sid: publicSessionId(deps.config.secret, req.sessionID),
          }
        : null,
    );
    // Decided meanwhile (another tab) or expired: the form again, saying so.
    if (!decided) return entry(deps, req, res, user, shown(typed), true);
    const ui = pageUi(req, deps.config);
    sendPage(res, 200, DeviceDonePage({ ui, user, csrf: await csrfToken(req), appName: app.name, allowed }));
  });
}
