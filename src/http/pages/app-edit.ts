// {auth_url}/developers/:clientId/edit (docs/http-api.md#developers): the owner edits an app's name,
// redirect URLs, post-logout URLs and homepage. The client id, secret, consents and tokens stay; a
// refused value gives the form back with the reason and changes nothing. To anyone but the owner
// the app does not exist (404).
import type { Request } from "express";
import { FormError } from "../../domain/accounts.js";
import { field, page, type PagesDeps } from "./context.js";
import { ownerAndApp } from "./custom-tokens.js";
import { byOwner, renderConsole } from "./developers.js";
import { pageUi } from "./ui.js";

/** Every value of a multi-line URL field, split on line breaks. */
function lines(req: Request, name: string): string[] {
  const v: unknown = (req.body as Record<string, unknown> | undefined)?.[name];
  const list = Array.isArray(v) ? v : [v];
  return list.filter((x): x is string => typeof x === "string").flatMap((s) => s.split(/\r?\n/));
}

export function editApp(deps: PagesDeps) {
  return page(async (req, res) => {
    const found = await ownerAndApp(req, res, deps);
    if (!found) return;
    const { user, app } = found;
    const name = field(req, "name");
    const homepage = field(req, "homepage");
    try {
      const edited = await deps.apps.update(app, {
        name,
        redirectUris: lines(req, "redirect_uri"),
        postLogoutRedirectUris: lines(req, "post_logout_redirect_uri"),
        homepage,
      });
      deps.audit.record({ type: "app.updated", ...byOwner(req, user), clientId: app.clientId });
      const done = pageUi(req, deps.config).t("dev.edited", { app: edited.name });
      await renderConsole(req, res, deps, user, 200, { done });
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      await renderConsole(req, res, deps, user, err.status, {
        error: err,
        editForm: {
          clientId: app.clientId,
          name: name.slice(0, 200),
          redirectUris: lines(req, "redirect_uri").join("\n").slice(0, 8000),
          postLogoutRedirectUris: lines(req, "post_logout_redirect_uri").join("\n").slice(0, 8000),
          homepage: homepage.slice(0, 2000),
        },
      });
    }
  });
}
