// GET {base_url}/pictures/:id — a user's profile picture: the upload, or the generated default.
// Served with its own content type, nosniff and a CSP that forbids everything active.
import type { Request, Response } from "express";
import { identiconSvg } from "../../domain/identicon.js";
import { notFound } from "../../errors.js";
import type { PagesDeps } from "./context.js";

const ID = /^[0-9a-f-]{36}$/;

export { pictureUrl } from "../../domain/pictures-url.js";

export function getPicture(deps: PagesDeps) {
  return async (req: Request, res: Response) => {
    const id = String(req.params.id);
    const user = ID.test(id) ? await deps.accounts.byId(id) : null;
    if (!user) throw notFound("err.noSuchUser");
    res.set({
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      "Cache-Control": "public, max-age=300",
      "Cross-Origin-Resource-Policy": "cross-origin",
    });
    if (user.picture) {
      const data = await deps.accounts.picture(user.id);
      if (data) {
        res.type(user.picture.type).send(data);
        return;
      }
    }
    res.type("image/svg+xml").send(identiconSvg(user.id));
  };
}
