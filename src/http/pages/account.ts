// GET/POST {auth_url}/account — display name, profile picture, consents (CONTRACT §4).
import type { NextFunction, Request, Response } from "express";
import { fileTypeFromBuffer } from "file-type";
import multer from "multer";
import { FormError } from "../../domain/accounts.js";
import { SigilError } from "../../errors.js";
import { AccountPage } from "../../views/account.js";
import { sendPage } from "../../views/layout.js";
import { currentUser, field, page, signInUrl, type PagesDeps } from "./context.js";
import { pictureUrl } from "./pictures.js";
import { csrfToken } from "./session.js";

const PICTURE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** multipart parsing for the picture: 1 MB, one file, a few small fields. */
export function pictureUpload() {
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: 1024 * 1024, files: 1, fields: 5, fieldSize: 4096, parts: 8 },
  }).single("picture");
  return (req: Request, res: Response, next: NextFunction) => {
    // multer reads the bytes as they come: an encoded body cannot be read (CONTRACT §2).
    const encoding = req.headers["content-encoding"];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity" && req.is("multipart/form-data")) {
      return next(new SigilError(400, "invalid_request", "The upload cannot be read: its Content-Encoding is not supported."));
    }
    upload(req, res, (err: unknown) => {
      if (!err) return next();
      if (err instanceof multer.MulterError && err.code === "LIMIT_FILE_SIZE") {
        return next(new SigilError(413, "request_too_large", "The picture is larger than 1 MB."));
      }
      next(new SigilError(400, "invalid_request", "The upload could not be read."));
    });
  };
}

async function render(req: Request, res: Response, deps: PagesDeps, status: number, extra: { error?: string; notice?: string } = {}) {
  const user = (await currentUser(req, deps))!;
  const ids = await deps.oauth.consents(user.id);
  const apps = await Promise.all(ids.map((id) => deps.apps.byClientId(id)));
  const consents = apps.flatMap((a) => (a ? [{ clientId: a.clientId, name: a.name }] : []));
  sendPage(res, status, AccountPage({ user, pictureUrl: pictureUrl(deps.config.baseUrl, user), consents, csrf: await csrfToken(req), ...extra }));
}

export function accountPage(deps: PagesDeps) {
  return page(async (req, res) => {
    if (!(await currentUser(req, deps))) return res.redirect(303, signInUrl(req));
    await render(req, res, deps, 200);
  });
}

export function updateAccount(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    try {
      const file = req.file;
      if (file) {
        const kind = await fileTypeFromBuffer(file.buffer);
        if (!kind || !PICTURE_TYPES.has(kind.mime)) throw new FormError("The picture must be a PNG, JPEG, GIF or WebP image.");
        await deps.accounts.setPicture(user.id, kind.mime, file.buffer);
      } else if ("display_name" in ((req.body as object | undefined) ?? {})) {
        await deps.accounts.setDisplayName(user.id, field(req, "display_name"));
      } else {
        throw new FormError("Nothing to change.");
      }
      res.redirect(303, "/account");
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      await render(req, res, deps, err.status, { error: err.description });
    }
  });
}

export function withdrawConsent(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    const clientId = field(req, "client_id");
    if (clientId) await deps.oauth.withdrawConsent(user.id, clientId);
    res.redirect(303, "/account");
  });
}
