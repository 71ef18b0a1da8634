// CUSTOM TOKENs on {auth_url}/developers (docs/http-api.md#developers, docs/realtime.md#custom-tokens): the app's owner creates one (its value
// is shown once, in the answer to that POST, and nowhere else) and revokes it. To anyone but the
// owner the app does not exist: 404, the same as an unknown client_id.
import type { Request, Response } from "express";
import { message, notFound, SigilError } from "../../errors.js";
import type { AppRecord, UserRecord } from "../../store/port.js";
import { currentUser, field, page, type PagesDeps } from "./context.js";
import { renderConsole } from "./developers.js";

const NO_SUCH_APP = message("err.noSuchApp");
const NO_SUCH_TOKEN = message("err.noSuchToken");

/** Token ids are 16 random bytes in base64url; anything else cannot name a token. */
const TOKEN_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * `expires_in`: empty for a token that never expires, else whole seconds. The form offers a few
 * choices; any whole number the domain accepts (1 s to 10 years) is taken, as with the CLI's
 * `--expires-in`, so a script can pick its own lifetime.
 */
function expiresIn(raw: string): number | undefined {
  if (raw.trim() === "") return undefined;
  if (!/^\d{1,10}$/.test(raw.trim())) throw new SigilError(400, "invalid_request", "err.expiry", {});
  return Number(raw.trim());
}

/** The signed-in user and the app they own, or undefined once the answer was sent. */
export async function ownerAndApp(
  req: Request,
  res: Response,
  deps: PagesDeps,
): Promise<{ user: UserRecord; app: AppRecord } | undefined> {
  const user = await currentUser(req, deps);
  if (!user) {
    res.redirect(303, "/signin");
    return undefined;
  }
  const app = await deps.apps.owned(user.id, String(req.params.clientId));
  if (!app) {
    await renderConsole(req, res, deps, user, 404, { error: NO_SUCH_APP });
    return undefined;
  }
  return { user, app };
}

export function createToken(deps: PagesDeps) {
  return page(async (req, res) => {
    const found = await ownerAndApp(req, res, deps);
    if (!found) return;
    const { user, app } = found;
    try {
      const exp = expiresIn(field(req, "expires_in"));
      // Channel names never hold spaces: the field lists them separated by any whitespace.
      const channels = field(req, "channels").split(/\s+/).filter(Boolean);
      const { token, record } = await deps.customTokens.create({
        app: app.clientId,
        name: field(req, "name"),
        ...(exp !== undefined ? { expiresIn: exp } : {}),
        ...(field(req, "publish") !== "" ? { publish: true } : {}),
        ...(channels.length > 0 ? { channels } : {}),
      });
      await renderConsole(req, res, deps, user, 201, {
        shownToken: { app: app.clientId, id: record.id, name: record.name, token },
      });
    } catch (err) {
      // Bad input is the console again with the reason; anything else is the page error handler's.
      if (!(err instanceof SigilError) || err.status !== 400) throw err;
      await renderConsole(req, res, deps, user, 400, { error: err });
    }
  });
}

export function revokeToken(deps: PagesDeps) {
  return page(async (req, res) => {
    const found = await ownerAndApp(req, res, deps);
    if (!found) return;
    const { user, app } = found;
    const id = String(req.params.tokenId);
    try {
      if (!TOKEN_ID.test(id)) throw notFound();
      await deps.customTokens.revoke(app.clientId, id);
    } catch (err) {
      if (!(err instanceof SigilError) || err.status !== 404) throw err;
      return renderConsole(req, res, deps, user, 404, { error: NO_SUCH_TOKEN });
    }
    res.redirect(303, "/developers");
  });
}
